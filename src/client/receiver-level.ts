/**
 * The level of a remote track as its RTP packets carry it (RFC 6464 audio level, read through
 * `RTCRtpReceiver.getSynchronizationSources()`), for the output meter where Web Audio cannot run:
 * Firefox keeps every AudioContext `suspended` on a machine with no audio output device (a CI
 * container, a server without a sound server), so an analyser reads nothing for the whole call.
 * Measured in Firefox ESR 153 (test/firefox). The microphone has no such source (Firefox's stats
 * give no `media-source` level), so the input meter says `null` there.
 */
// Held weakly both ways: the peer connection keeps its receivers while the call runs, and a
// receiver kept past it would outlive its call (peer.ts remembers none for Node's @roamhq/wrtc,
// which crashes at exit on a live receiver).
const receivers = new WeakMap<MediaStreamTrack, WeakRef<RTCRtpReceiver>>();

/** Packets older than this are not "now": the browser keeps a source's entry for 10 s after its last packet. */
export const RECEIVER_LEVEL_STALE_MS = 500;

/** Called where the peer connection reports a remote track. */
export function rememberReceiver(track: MediaStreamTrack, receiver: RTCRtpReceiver | undefined): void {
  // Only where a level can be read.
  if (typeof receiver?.getSynchronizationSources === 'function' && typeof WeakRef === 'function') receivers.set(track, new WeakRef(receiver));
}

/**
 * The latest packet's audio level, a linear amplitude 0..1 (1 is 0 dBov, RMS-based like the
 * analyser's), 0 when no packet arrived lately, or undefined when the stream has no remembered
 * receiver or the browser cannot say (no `getSynchronizationSources`, no level).
 */
export function receiverAmplitude(stream: MediaStream, now: number = performance.timeOrigin + performance.now()): number | undefined {
  // A stand-in stream (a test's, a custom source's) may have no track list.
  for (const track of stream.getAudioTracks?.() ?? []) {
    const receiver = receivers.get(track)?.deref();
    if (typeof receiver?.getSynchronizationSources !== 'function') continue;
    let latest: RTCRtpSynchronizationSource | undefined;
    for (const source of receiver.getSynchronizationSources()) {
      if (!latest || source.timestamp > latest.timestamp) latest = source;
    }
    if (!latest) return 0;
    if (now - latest.timestamp > RECEIVER_LEVEL_STALE_MS) return 0;
    return typeof latest.audioLevel === 'number' ? latest.audioLevel : undefined;
  }
  return undefined;
}
