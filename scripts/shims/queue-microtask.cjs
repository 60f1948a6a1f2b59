'use strict';
// The `queue-microtask` package inside the vendored simple-peer bundle: every browser has the global
// (the package's Promise fallback is for Node 10).
module.exports = (callback) => queueMicrotask(callback);
