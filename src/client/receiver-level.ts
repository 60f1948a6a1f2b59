/**
 * The level of a remote track as its RTP packets carry it (RFC 6464 audio level, read through
 * `RTCRtpReceiver.getSynchronizationSources()`), for the output meter where Web Audio cannot run:
 * Firefox keeps every AudioContext `suspended` on a machine with no audio output device (a CI
 * container, a server without a sound server), so an analyser reads nothing for the whole call.
 * Measured in Firefox ESR 153 (test/firefox). The microphone has no such source (Firefox's stats
 * give no `media-source` level), so the input meter says `null` there.
 * Keyed weakly by track; peer.ts remembers none for Node's @roamhq/wrtc (it crashes at exit on a
 * receiver kept alive), and in browsers the peer connection holds its receivers anyway. Kept this
 * small for the core bundle's 48 KB budget: the first source is the call's one sender, and an
 * idle call still sends packets (silence), so the latest entry is current.
 */
const receivers = new WeakMap<MediaStreamTrack, RTCRtpReceiver>();

/** Called where the peer connection reports a remote track. */
export const rememberReceiver = (track: MediaStreamTrack, receiver: RTCRtpReceiver): void => void receivers.set(track, receiver);

/**
 * The latest packet's audio level, a linear amplitude 0..1 (1 is 0 dBov, RMS-based like the
 * analyser's); undefined when the stream has no remembered receiver, no packet came yet, or the
 * browser cannot say. A stand-in stream (a test's, a custom source's) may have no track list.
 */
export const receiverAmplitude = (stream: MediaStream): number | undefined =>
  receivers.get(stream.getAudioTracks?.()[0]!)?.getSynchronizationSources?.()[0]?.audioLevel;
