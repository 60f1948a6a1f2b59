/** The pre-connect buffer's public types (a leaf module: options.ts and report.ts import it, pre-connect.ts implements it). */

/**
 * Captures a microphone track as mono PCM16 until the returned function is called: `onPcm` gets
 * each block with its sample rate. The default is `webAudioCapture()` (pcm-capture.ts); Node
 * and tests pass their own (option `preConnectBuffer: { capture }`).
 */
export type PcmCapture = (track: MediaStreamTrack, onPcm: (samples: Int16Array, sampleRate: number) => void) => () => void;

/** Option `preConnectBuffer` of `VoiceSession`: `true` (default), `false`, or its settings. */
export type PreConnectBufferOption = boolean | {
  /** Most audio kept (ms, default 10000, at most 30000); beyond it the oldest audio is dropped. */
  maxMs?: number;
  /** How the microphone is captured before the call is connected (default Web Audio). */
  capture?: PcmCapture;
};

/** What `report().preConnect` says: how much audio the pre-connect buffer kept, sent and dropped (ms). */
export interface PreConnectReport {
  /** Audio kept from `start()` until connected (never while muted; in push-to-talk only while held). */
  bufferedMs: number;
  /** How much of it reached the service (0 when it did not announce `pre_connect_audio`). */
  sentMs: number;
  /** Audio dropped because the buffer was full (the oldest first). */
  droppedMs: number;
}
