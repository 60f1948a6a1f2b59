import { MAX_PRECONNECT_MS, type ClientEvent } from 'kb-voice/schemas';
import { resample } from './pcm.js';
import { VAD_SAMPLE_RATE } from './vad.js';

/** Most live audio held while pre-connect chunks arrive (ms at 16 kHz); beyond it the oldest is dropped. */
const MAX_HELD_LIVE_MS = 60000;
/**
 * Loudest sample (of 32767) of a frame that counts as the client's held track: a kb-voice client
 * keeps its live track silent (zeros, or comfort noise after Opus DTX) until it sends its first
 * chunk; speech and a real microphone's room noise are far above (-60 dBFS).
 */
const HELD_SILENCE_PEAK = 32;

type PreConnectChunk = Extract<ClientEvent, { type: 'input.preconnect' }>;

/**
 * The caller's pre-connect audio (v1 `input.preconnect`, announced as `pre_connect_audio` in
 * `session.ready`) put ahead of the live audio: from the first chunk until the `final` one, live
 * audio is held back; each chunk's audio goes to the VAD as it arrives, then the held live audio,
 * so the VAD and the turn hear one continuous stream: the utterance from its first syllable. The
 * client keeps its live track silent until it sends the chunks, so what the live track carried
 * before the first chunk (fed as it came) is silence, not a copy.
 *
 * Once per call: chunks after the final one, out of order, or beyond `MAX_PRECONNECT_MS` in all are
 * refused (a `protocol_error`), their audio dropped. Positions are in the VAD's stream time (ms of
 * 16 kHz audio fed so far), so a turn can say how much of its audio came from the buffer.
 */
export class PreConnectFeed {
  #phase: 'live' | 'expecting' | 'receiving' | 'done' = 'live';
  #next = 0;
  #receivedMs = 0;
  #held: Int16Array[] = [];
  #heldSamples = 0;
  /** Stream time (ms) where the buffered audio begins and ends; undefined before any. */
  #startMs: number | undefined;
  #endMs: number | undefined;
  #fedSamples = 0;

  constructor(private readonly feed: (samples: Int16Array) => void) {}

  /**
   * The channel opened and `session.ready` announced the capability: live audio is held until the
   * client's first message. A client with pre-connect audio sends it first, ahead of any ping, so
   * live audio that overtakes it on the network (RTP beside the data channel) still goes after it;
   * any other first message, or {@link release} (a deadline), lets it through.
   */
  expect(): void {
    if (this.#phase === 'live') this.#phase = 'expecting';
  }

  /** A client message was handled: if it was not pre-connect audio, the held live audio goes on. */
  messageSeen(): void {
    if (this.#phase === 'expecting') this.#letLiveThrough();
  }

  /**
   * No message came in time: the held live audio goes on. Pre-connect audio may still come (a
   * busy client answers `session.ready` late): a kb-voice client keeps its live track silent until
   * it has sent its first chunk, so nothing the caller said went ahead of it.
   */
  release(): void {
    if (this.#phase === 'expecting') this.#letLiveThrough();
  }

  /** The held live audio goes on and live audio flows; pre-connect audio is still taken until a final chunk. */
  #letLiveThrough(): void {
    this.#finish();
    this.#phase = 'live';
  }

  /** Live audio at 16 kHz: fed at once, or held while pre-connect audio is expected or arriving. */
  live(samples: Int16Array): void {
    if (this.#phase !== 'receiving' && this.#phase !== 'expecting') return this.#push(samples);
    this.#held.push(samples);
    this.#heldSamples += samples.length;
    while (this.#heldSamples > (MAX_HELD_LIVE_MS * VAD_SAMPLE_RATE) / 1000) this.#heldSamples -= this.#held.shift()!.length;
  }

  /** One `input.preconnect` chunk; returns the reason it was refused, or undefined. */
  chunk(event: PreConnectChunk): string | undefined {
    if (this.#phase === 'done') return 'input.preconnect after its final chunk (the pre-connect audio is sent once per call)';
    if (event.seq !== this.#next) return `input.preconnect seq ${event.seq} out of order (expected ${this.#next})`;
    const bytes = Buffer.from(event.audio, 'base64');
    if (bytes.length % 2 !== 0) return 'input.preconnect audio must be whole PCM16 samples';
    const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const ms = (pcm.length * 1000) / event.sample_rate;
    if (this.#receivedMs + ms > MAX_PRECONNECT_MS) {
      this.#finish();
      return `input.preconnect carries more than ${MAX_PRECONNECT_MS} ms in all`;
    }
    this.#next++;
    this.#receivedMs += ms;
    if (this.#phase === 'live' || this.#phase === 'expecting') {
      // Held since session.ready: the client's silent track until it sent this chunk (the caller's
      // voice comes after this chunk but for RTP that overtook it). That silence goes: put after
      // the buffered audio, it would be a pause of about a round trip inside the utterance
      // (measured 200 ms on the lab's congested-wifi), where the VAD may end it. Only what came
      // before this chunk: later silence may be the caller's own pause. (After the deadline it
      // was fed already, before the buffered audio.)
      if (this.#phase === 'expecting') {
        while (this.#held.length > 0 && silent(this.#held[0]!)) this.#heldSamples -= this.#held.shift()!.length;
      }
      this.#phase = 'receiving';
      this.#startMs = this.#streamMs;
    }
    this.#push(resample(pcm, event.sample_rate, VAD_SAMPLE_RATE));
    this.#endMs = this.#streamMs;
    if (event.final) this.#finish();
    return undefined;
  }

  /** Milliseconds of the stream span `[startMs, startMs + durationMs)` that came from the buffer. */
  bufferedWithin(startMs: number, durationMs: number): number {
    if (this.#startMs === undefined || this.#endMs === undefined) return 0;
    return Math.max(0, Math.min(startMs + durationMs, this.#endMs) - Math.max(startMs, this.#startMs));
  }

  /** The held live audio goes on after the buffered audio. */
  #finish(): void {
    this.#phase = 'done';
    const held = this.#held;
    this.#held = [];
    this.#heldSamples = 0;
    for (const samples of held) this.#push(samples);
  }

  get #streamMs(): number {
    return (this.#fedSamples * 1000) / VAD_SAMPLE_RATE;
  }

  #push(samples: Int16Array): void {
    this.#fedSamples += samples.length;
    this.feed(samples);
  }
}

/** A frame of the client's held track (see {@link HELD_SILENCE_PEAK}). */
function silent(samples: Int16Array): boolean {
  for (const v of samples) if (v > HELD_SILENCE_PEAK || v < -HELD_SILENCE_PEAK) return false;
  return true;
}
