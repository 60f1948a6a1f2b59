// Stand-in for `require('readable-stream')` as simple-peer uses it: only `stream.Duplex` (its base
// class). The package's index also loads Transform, PassThrough, pipeline and finished, which
// cannot be tree-shaken out of CommonJS; this keeps them out of the bundle (scripts/build.mjs).
exports.Duplex = require('readable-stream/lib/_stream_duplex.js');
