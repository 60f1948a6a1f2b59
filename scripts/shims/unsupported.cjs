// Replaces parts of readable-stream that simple-peer never reaches (setEncoding's string decoder,
// async iteration, Readable.from) in the vendored bundle, to save bytes. They are only `require`d
// lazily, on first use, so a call fails loudly here instead of silently misbehaving.
function unsupported() {
  throw new Error('kb-voice: this stream feature is not included in the bundled simple-peer');
}
exports.StringDecoder = unsupported;
module.exports = Object.assign(unsupported, exports);
