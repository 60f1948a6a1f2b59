'use strict';
// Stand-in for the `debug` package inside the vendored simple-peer bundle. simple-peer only calls
// `require('debug')('simple-peer')(...)` to log (and the build removes those calls: dropDebugCalls);
// the real package (plus `ms`) costs ~3 KB gzipped in every consumer's bundle and reads localStorage
// at load. Logging of simple-peer internals is lost; kb-voice reports what matters through
// VoiceSession events instead.
module.exports = () => () => {};
