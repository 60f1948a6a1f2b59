'use strict';
// The `err-code` package inside the vendored simple-peer bundle: `errCode(error, code)` (the only form
// simple-peer calls) gives the error an enumerable `code`. Defined, not assigned: a DOMException has a
// getter-only `code` on its prototype. Where the error cannot take it (frozen), a copy with the same
// prototype, message and stack carries it, as the package does. test/package/slim-small.test.ts.
const define = (target, props) => {
  for (const key in props) Object.defineProperty(target, key, { value: props[key], enumerable: true, configurable: true });
  return target;
};

module.exports = function errCode(err, code) {
  try {
    return define(err, { code });
  } catch {
    return define(Object.create(Object.getPrototypeOf(err)), { code, message: err.message, stack: err.stack });
  }
};
