// Entry of dist/vendor/simple-peer.js: simple-peer 9 (CommonJS, written for browserify) turned into
// one self-contained ES module with its Node-isms (buffer, events, global) provided inside, so that
// kb-voice's browser entry needs no polyfill or bundler setting in the consuming app. CommonJS itself,
// so esbuild's output needs no ESM interop helpers: its default export is simple-peer's module.exports.
module.exports = require('simple-peer');
