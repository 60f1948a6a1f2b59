'use strict';
// The `randombytes` package inside the vendored simple-peer bundle (simple-peer draws its peer id
// from it): the same contract — `randombytes(size)` returns a Buffer of secure random bytes,
// `randombytes(size, cb)` calls back asynchronously — from Web Crypto alone, without the package's
// safe-buffer copy and `global.crypto || global.msCrypto` lookup.
const { Buffer } = require('buffer');

// getRandomValues fills at most 65536 bytes per call.
const MAX_BYTES = 65536;

module.exports = function randomBytes(size, cb) {
  const crypto = globalThis.crypto;
  if (!crypto || typeof crypto.getRandomValues !== 'function') {
    throw new Error('Secure random number generation is not supported by this browser.\nUse Chrome, Firefox or Internet Explorer 11');
  }
  if (size > 4294967295) throw new RangeError('requested too many random bytes');
  const bytes = Buffer.allocUnsafe(size);
  for (let offset = 0; offset < size; offset += MAX_BYTES) {
    crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + MAX_BYTES)));
  }
  if (typeof cb === 'function') {
    queueMicrotask(() => cb(null, bytes));
    return undefined;
  }
  return bytes;
};
