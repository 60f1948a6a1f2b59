/**
 * What the emulator's SDP answer asks of the caller's audio encoder. fmtp parameters in an answer
 * are the answerer's receive preferences, so they configure the caller's sender.
 *
 * `usedtx=1` (RFC 7587 §6.1): the caller's Opus encoder stops sending full frames while the
 * microphone is silent (a comfort-noise packet every 400 ms instead of 50 per second). A voice
 * session is mostly the caller listening, so this removes most inbound packets the emulator would
 * otherwise decrypt, decode and run voice-activity detection over — on two cores that is a quarter
 * of the emulator's CPU with 28 sessions connected and silent (bench/capacity.mjs). Browsers and
 * libwebrtc honour it; speech resumes full frames from its first 20 ms, so detection and
 * recordings of speech are unchanged.
 */
export function preferOpusDtx(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(/\r?\n/);
  const opus = new Set<string>();
  for (const line of lines) {
    const m = /^a=rtpmap:(\d+) opus\/48000/i.exec(line);
    if (m) opus.add(m[1]!);
  }
  if (opus.size === 0) return sdp;
  const withFmtp = new Set<string>();
  const out = lines.map((line) => {
    const m = /^a=fmtp:(\d+) (.*)$/.exec(line);
    if (!m || !opus.has(m[1]!)) return line;
    withFmtp.add(m[1]!);
    if (/(?:^|;)\s*usedtx=/.test(m[2]!)) return line; // the answer already states it
    return `${line};usedtx=1`;
  });
  // An Opus payload without an fmtp line gets one right after its rtpmap.
  for (const pt of opus) {
    if (withFmtp.has(pt)) continue;
    const at = out.findIndex((l) => l.startsWith(`a=rtpmap:${pt} `));
    out.splice(at + 1, 0, `a=fmtp:${pt} usedtx=1`);
  }
  return out.join(eol);
}
