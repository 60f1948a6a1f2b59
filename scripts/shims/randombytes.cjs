'use strict';
// The `randombytes` package inside the vendored simple-peer bundle. simple-peer draws two ids from it,
// `randombytes(4).toString('hex')` (its debug id) and `randombytes(20).toString('hex')` (the data
// channel's default name): bytes from Web Crypto whose toString('hex') gives Node's hex string.
// Only what simple-peer calls: no callback form, no other encoding (test/package/slim-buffer.test.ts).

module.exports = function randomBytes(size) {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(size));
  bytes.toString = (encoding) => {
    if (encoding !== 'hex') throw new TypeError(`randombytes shim: hex only (got ${encoding})`);
    return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  };
  return bytes;
};
