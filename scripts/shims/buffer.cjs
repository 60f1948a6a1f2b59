'use strict';
// The `buffer` module inside the vendored simple-peer bundle (scripts/build.mjs aliases it here).
// simple-peer 9's browser path uses Buffer once: `Buffer.from(event.data)` for a binary
// data-channel message (an ArrayBuffer). That is all this provides: a byte view on the same memory
// (a Uint8Array, as Node's Buffer is one). Text messages stay strings (scripts/shims/duplex.cjs) and
// random ids come from scripts/shims/randombytes.cjs, so nothing else needs a Buffer; the build fails
// if simple-peer names Buffer more often than expected (scripts/build.mjs, SIMPLE_PEER_SHIMMED_USES).
// A full Buffer here cost ~1.3 KB min+gzip of every visitor's download for code that never ran.
// test/package/slim-buffer.test.ts checks the one use against Node's Buffer.

exports.Buffer = {
  from(value) {
    if (!(value instanceof ArrayBuffer)) throw new TypeError('the vendored simple-peer Buffer takes an ArrayBuffer only');
    return new Uint8Array(value);
  },
};
