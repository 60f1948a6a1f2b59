import wrtc from '@roamhq/wrtc';
import { resample, toMono } from './realtime/pcm.js';
import { releaseBeforeExit } from './realtime/wrtc-exit.js';
import { decodeWav } from './wav.js';

/**
 * The stream `open()` hands out: the DOM's `MediaStream` where DOM types are loaded (so it fits
 * `VoiceSession`'s `microphone` option), otherwise the little of it a Node script uses.
 */
export type FakeMicrophoneStream = typeof globalThis extends { MediaStream: { prototype: infer T } }
  ? T
  : { getTracks(): Array<{ stop(): void }> };

const RATE = 48_000;
const FRAME = 480; // 10 ms at 48 kHz: what RTCAudioSource expects
/** After a stall longer than this, skip ahead instead of bursting: a real microphone does not deliver the past. */
const MAX_LAG_FRAMES = 20;

// One timer paces every open microphone, so a QA script with dozens of callers costs one interval.
const open = new Set<FakeMicrophone>();
let ticker: ReturnType<typeof setInterval> | undefined;
function track(mic: FakeMicrophone, on: boolean): void {
  if (on) open.add(mic);
  else open.delete(mic);
  if (open.size && !ticker) ticker = setInterval(() => { for (const m of open) m.pump(); }, 5);
  if (!open.size && ticker) ticker = void clearInterval(ticker);
}

/**
 * A microphone for driving `VoiceSession` from Node (QA scripts, tests, load runs): an
 * `RTCAudioSource` track that delivers 10 ms frames in real time, silence unless {@link play} is
 * speaking, paced from the wall clock so it never drifts.
 *
 * ```ts
 * const mic = new FakeMicrophone();
 * const session = new VoiceSession({ aiId, api, wrtc, microphone: mic.open });
 * await session.start();
 * await mic.playWav(await readFile('question.wav'));
 * ```
 */
export class FakeMicrophone {
  /** Dropped by close(), so the process can exit cleanly (realtime/wrtc-exit.ts). */
  #source: InstanceType<typeof wrtc.nonstandard.RTCAudioSource> | undefined = new wrtc.nonstandard.RTCAudioSource();
  /** Every stream handed out by {@link open}, e.g. to check that a session released the microphone. */
  readonly streams: FakeMicrophoneStream[] = [];
  /** The device id asked for by each {@link open} call (VoiceSession passes one on device switches). */
  readonly opened: Array<string | undefined> = [];
  /** Frames to speak; the last frame of each clip carries the resolver of its `play()`. */
  #queue: Array<{ frame: Int16Array; done?: () => void }> = [];
  #startedAt = performance.now();
  #sent = 0;

  constructor() {
    releaseBeforeExit(this.#source!);
    track(this, true);
  }

  /** The `microphone` option of `VoiceSession`: each call opens a new track on the same source. */
  readonly open = async (deviceId?: string): Promise<FakeMicrophoneStream> => {
    if (!this.#source) throw new Error('FakeMicrophone is closed: make a new one');
    this.opened.push(deviceId);
    const stream = new wrtc.MediaStream([this.#source.createTrack()]) as unknown as FakeMicrophoneStream;
    this.streams.push(stream);
    return stream;
  };

  /** Speaks mono PCM16 samples (resampled to 48 kHz); resolves once the last frame went out. */
  play(samples: Int16Array, sampleRate = RATE): Promise<void> {
    const pcm = resample(samples, sampleRate, RATE);
    const frames: Array<{ frame: Int16Array; done?: () => void }> = [];
    for (let i = 0; i < pcm.length; i += FRAME) {
      const frame = new Int16Array(FRAME);
      frame.set(pcm.subarray(i, Math.min(i + FRAME, pcm.length)));
      frames.push({ frame });
    }
    if (!frames.length || !this.#source) return Promise.resolve(); // a closed microphone speaks no more
    this.#queue.push(...frames);
    return new Promise((resolve) => (frames[frames.length - 1]!.done = resolve));
  }

  /** Speaks a PCM16 WAV file (any rate, mono or stereo). */
  playWav(bytes: Uint8Array): Promise<void> {
    const wav = decodeWav(bytes);
    return this.play(toMono(wav.samples, wav.channels), wav.sampleRate);
  }

  /** Stops the tracks and the pacing. */
  close(): void {
    track(this, false);
    for (const s of this.streams) for (const t of (s as { getTracks(): Array<{ stop(): void }> }).getTracks()) t.stop();
    // The source must be collectable before the process exits (realtime/wrtc-exit.ts).
    this.#source = undefined;
    // Pending play() calls resolve: nothing more will be spoken.
    for (const item of this.#queue.splice(0)) item.done?.();
  }

  /** @internal Sends the frames that are due. */
  pump(): void {
    const source = this.#source;
    if (!source) return;
    const due = Math.floor((performance.now() - this.#startedAt) / 10);
    if (due - this.#sent > MAX_LAG_FRAMES) this.#sent = due - MAX_LAG_FRAMES;
    while (this.#sent < due) {
      this.#sent++;
      const item = this.#queue.shift();
      source.onData({ samples: item?.frame ?? new Int16Array(FRAME), sampleRate: RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME });
      item?.done?.();
    }
  }
}
