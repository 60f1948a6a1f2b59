import { VoiceGate, type VoiceGateOptions } from '../client/noise/voice-gate.js';
import { ToneDetector } from './tonality.js';

/** rnnoise works on 10 ms frames at 48 kHz. */
export const FRAME_SAMPLES = 480;

/**
 * Cleans one frame in place (samples in -1..1) and returns its voice probability (0-1): rnnoise's
 * `rnnoise_process_frame`, or a stand-in in tests.
 */
export type Denoise = (frame: Float32Array) => number;

/** Counters of one stream, for the bench and the snapshot's figures. */
export interface FrameCounters {
  frames: number;
  /** Frames sent (gate open, or no gate). */
  sent: number;
  /** Frames confirmed as voice. */
  voiced: number;
  /** Times the suppressor's output turned non-finite and it was reset (its frame left silent). */
  resets: number;
}

/**
 * A sample rnnoise can take: non-finite is 0 (dropped), the rest clamped to -1..1. One NaN or
 * Infinity (or a huge value) would poison rnnoise's recurrent state: every later frame NaN.
 */
const sane = (v: number): number => (Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0);

/**
 * The audio side of rnnoise + the voice gate, free of Web Audio so it runs in Node (tests, bench):
 * render quanta of any length in, the same number of samples out. Inside, 480-sample frames are
 * cleaned by `denoise`, judged by the {@link VoiceGate} (a tonal frame counts as no voice), held in a delay line of the gate's
 * pre-roll, and leave with a gain of 1 (open) or 0 (closed), ramped over one frame so the gate
 * never clicks. Output lags input by one frame (framing) plus the pre-roll.
 */
export class FrameProcessor {
  readonly counters: FrameCounters = { frames: 0, sent: 0, voiced: 0, resets: 0 };
  private readonly gate: VoiceGate | undefined;
  private readonly pending = new Float32Array(FRAME_SAMPLES);
  private filled = 0;
  /** Delay line of cleaned frames (pre-roll), oldest first. */
  private readonly delay: Float32Array[];
  private head = 0;
  /** Samples ready to leave, as a ring of two frames, grown when a render quantum holds more. */
  private out = new Float32Array(FRAME_SAMPLES * 2);
  private outRead = 0;
  private outCount = FRAME_SAMPLES;
  private gain = 0;
  private readonly tones: ToneDetector | undefined;

  /**
   * @param reset Makes `denoise` fresh again (rnnoise: a new state); called when its output turned
   *   non-finite, which would otherwise last for the rest of the stream.
   */
  constructor(private readonly denoise: Denoise, gate: VoiceGateOptions | false = {}, private readonly reset: () => void = () => undefined) {
    this.gate = gate === false ? undefined : new VoiceGate(gate);
    this.gain = this.gate ? 0 : 1;
    this.tones = this.gate ? new ToneDetector() : undefined;
    const frames = this.gate?.delayFrames ?? 0;
    this.delay = Array.from({ length: frames }, () => new Float32Array(FRAME_SAMPLES));
  }

  /** Latency the processor adds, in samples (framing + pre-roll). */
  get latencySamples(): number {
    return FRAME_SAMPLES * (1 + this.delay.length);
  }

  /** Processes `input` (any length) into `output` (same length). */
  process(input: Float32Array, output: Float32Array): void {
    // Room for every frame this quantum completes, beside those still waiting to leave.
    const needed = this.outCount + Math.ceil((this.filled + input.length) / FRAME_SAMPLES) * FRAME_SAMPLES;
    if (needed > this.out.length) this.grow(needed);
    let i = 0;
    while (i < input.length) {
      const take = Math.min(input.length - i, FRAME_SAMPLES - this.filled);
      for (let k = 0; k < take; k++) this.pending[this.filled + k] = sane(input[i + k]!);
      this.filled += take;
      i += take;
      if (this.filled === FRAME_SAMPLES) {
        this.filled = 0;
        this.frame();
      }
    }
    for (let k = 0; k < output.length; k++) {
      if (this.outCount === 0) {
        output[k] = 0;
        continue;
      }
      output[k] = this.out[this.outRead]!;
      this.outRead = (this.outRead + 1) % this.out.length;
      this.outCount--;
    }
  }

  /** The ring made `size` samples long (whole frames), the samples waiting kept in order. */
  private grow(size: number): void {
    const out = new Float32Array(Math.ceil(size / FRAME_SAMPLES) * FRAME_SAMPLES);
    for (let k = 0; k < this.outCount; k++) out[k] = this.out[(this.outRead + k) % this.out.length]!;
    this.out = out;
    this.outRead = 0;
  }

  private frame(): void {
    const frame = this.pending.slice();
    // A tone is never voice, whatever rnnoise's VAD says of it (it scores beeps as voice).
    const tonal = this.tones?.push(frame) ?? false;
    let voice = this.denoise(frame);
    if (!Number.isFinite(voice) || !frame.every(Number.isFinite)) {
      // Input is sane, so the suppressor itself went wrong: start it afresh, send this frame silent.
      this.reset();
      this.counters.resets++;
      frame.fill(0);
      voice = 0;
    }
    const probability = tonal ? 0 : voice;
    this.counters.frames++;
    let leaving: Float32Array = frame;
    let target = 1;
    if (this.gate) {
      const step = this.gate.push(probability);
      if (step.voiced) this.counters.voiced++;
      target = step.open ? 1 : 0;
      if (this.delay.length > 0) {
        leaving = this.delay[this.head]!;
        this.delay[this.head] = frame;
        this.head = (this.head + 1) % this.delay.length;
      }
    }
    if (target === 1) this.counters.sent++;
    const from = this.gain;
    let write = (this.outRead + this.outCount) % this.out.length;
    for (let k = 0; k < FRAME_SAMPLES; k++) {
      const g = from + ((target - from) * (k + 1)) / FRAME_SAMPLES;
      this.out[write] = leaving[k]! * g;
      write = (write + 1) % this.out.length;
    }
    this.gain = target;
    this.outCount = Math.min(this.out.length, this.outCount + FRAME_SAMPLES);
  }
}
