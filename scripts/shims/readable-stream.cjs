// Stand-in for `require('readable-stream')` as simple-peer uses it: only `stream.Duplex` (its base
// class), here the small Duplex of scripts/shims/duplex.cjs instead of readable-stream's, whose
// Readable/Writable machinery simple-peer does not need (scripts/build.mjs).
exports.Duplex = require('./duplex.cjs');
