'use strict';
// The `get-browser-rtc` package inside the vendored simple-peer bundle (scripts/build.mjs aliases it
// here): the page's WebRTC classes, or null where there are none. Without the moz/webkit-prefixed
// fallbacks: every browser kb-voice supports has had the unprefixed ones since 2018.
// test/package/slim-small.test.ts compares it with the package.
module.exports = function getBrowserRTC() {
  const { RTCPeerConnection, RTCSessionDescription, RTCIceCandidate } = globalThis;
  return RTCPeerConnection ? { RTCPeerConnection, RTCSessionDescription, RTCIceCandidate } : null;
};
