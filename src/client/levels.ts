import type { SessionEffect } from './effects.js';
import type { Clock } from '../clock.js';
import { receiverAmplitude } from './receiver-level.js';

/** Reads the current level of one stream, 0..1; `undefined` while it cannot measure (e.g. a suspended AudioContext). */
export interface LevelMeter {
  read(): number | undefined;
  close(): void;
}

/** Makes a meter for a stream; returns undefined when it cannot (no Web Audio). */
export type LevelMeterFactory = (stream: MediaStream) => LevelMeter | undefined;

/** Maps an RMS amplitude (0..1) to 0..1 on a -60 dB..0 dB scale, which is how loudness is perceived. */
export function rmsToLevel(rms: number): number {
  if (!(rms > 0)) return 0;
  const db = 20 * Math.log10(rms);
  return Math.min(1, Math.max(0, (db + 60) / 60));
}

/** RMS of float samples in -1..1. */
export function rms(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return samples.length ? Math.sqrt(sum / samples.length) : 0;
}

/**
 * Web Audio meters sharing one AudioContext (browsers cap how many exist). Returns undefined where
 * there is no AudioContext (Node), so callers simply get no levels there.
 */
export function webAudioMeters(): { factory: LevelMeterFactory; context(): AudioContext; resume(): Promise<void>; close(): void; outputLatencyMs(): number | null } | undefined {
  const Ctx = (globalThis as { AudioContext?: typeof AudioContext }).AudioContext;
  if (!Ctx) return undefined;
  let ctx: AudioContext | undefined;
  let unlock: (() => void) | undefined;
  const GESTURES = ['pointerdown', 'keydown'] as const;
  const stopListening = () => {
    if (unlock) for (const type of GESTURES) removeEventListener(type, unlock, true);
    unlock = undefined;
  };
  /**
   * A context made outside a user gesture (start() called by a timer or after an await; Firefox
   * counts only the click's own call stack, Chromium the page's earlier click) stays suspended, and
   * the meters would read nothing for the whole call. Ask at once (enough where the page already had
   * a gesture), and again on the page's next click or key press, which is a gesture in every browser.
   */
  const wake = (context: AudioContext) => {
    if (context.state === 'running' || unlock || typeof addEventListener !== 'function') return;
    void context.resume().catch(() => undefined);
    unlock = () => {
      stopListening();
      if (context.state === 'suspended') void context.resume().catch(() => undefined);
    };
    for (const type of GESTURES) addEventListener(type, unlock, true);
  };
  const context = (): AudioContext => {
    if (!ctx) wake((ctx = new Ctx()));
    return ctx;
  };
  return {
    /**
     * The one context of the call (made on first use): the session asks for it inside start(), while
     * the microphone opens, so that its few ms of main-thread work (and the audio device's) are off
     * the connection path and it is made within the Start click's gesture; the pre-connect capture
     * records through it.
     */
    context,
    factory(stream) {
      const ctx = context();
      const source = ctx.createMediaStreamSource(stream);
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 512;
      source.connect(analyser);
      const buf = new Float32Array(analyser.fftSize);
      return {
        read: () => {
          // A suspended context (autoplay policy; Firefox with no audio output device never resumes
          // it) reads silence: a remote stream's level comes from its packets then, else say so.
          if (ctx?.state !== 'running') {
            const amplitude = receiverAmplitude(stream);
            return amplitude && rmsToLevel(amplitude);
          }
          analyser.getFloatTimeDomainData(buf);
          return rmsToLevel(rms(buf));
        },
        close: () => source.disconnect(),
      };
    },
    async resume() {
      if (ctx?.state === 'suspended') await ctx.resume();
    },
    /** The audio output's latency as the context reports it (Chromium, Firefox: `outputLatency`); null where it does not. */
    outputLatencyMs() {
      const seconds = (ctx as { outputLatency?: number } | undefined)?.outputLatency;
      return typeof seconds === 'number' && seconds > 0 && Number.isFinite(seconds) ? seconds * 1000 : null;
    },
    close() {
      stopListening();
      void ctx?.close().catch(() => undefined);
      ctx = undefined;
    },
  };
}

/** Period of the `reading` callback of {@link LevelMonitor} (ms). */
export const READING_MS = 20;

/**
 * Polls an input and an output meter and reports both together. Meters are made at start() (or at
 * once while started), on the call's AudioContext (made while the microphone opened: `webAudioMeters`).
 *
 * With `reading`, the meters are read every {@link READING_MS} and each pair goes to it, while
 * `report` still hears every `intervalMs`: the perceived latency's ends are then known to ±20 ms
 * instead of ±100 ms (an analyser read is a few µs; UIs keep their 10 updates a second).
 */
export class LevelMonitor implements SessionEffect {
  private input: LevelMeter | undefined;
  private output: LevelMeter | undefined;
  private streams: { input?: MediaStream | undefined; output?: MediaStream | undefined } = {};
  private timer: unknown;

  constructor(
    private readonly factory: LevelMeterFactory | undefined,
    private readonly report: (levels: { input: number | null; output: number | null }) => void,
    private readonly clock: Clock,
    private readonly intervalMs = 100,
    private readonly reading?: (levels: { input: number | null; output: number | null }) => void,
  ) {}

  setInput(stream: MediaStream | undefined): void {
    this.input?.close();
    this.input = undefined;
    this.streams.input = stream;
    if (this.timer !== undefined) this.input = stream && this.factory?.(stream);
  }

  setOutput(stream: MediaStream | undefined): void {
    this.output?.close();
    this.output = undefined;
    this.streams.output = stream;
    if (this.timer !== undefined) this.output = stream && this.factory?.(stream);
  }

  connected(): void {
    this.start();
  }

  start(): void {
    if (this.timer !== undefined || !this.factory) return;
    const { input, output } = this.streams;
    this.input ??= input && this.factory(input);
    this.output ??= output && this.factory(output);
    if (!this.input && !this.output) return;
    const step = this.reading ? Math.min(this.intervalMs, READING_MS) : this.intervalMs;
    const every = Math.max(1, Math.round(this.intervalMs / step));
    let count = 0;
    const tick = () => {
      this.timer = this.clock.setTimeout(tick, step);
      if (!this.input && !this.output) return;
      const levels = { input: this.input?.read() ?? null, output: this.output?.read() ?? null };
      this.reading?.(levels);
      if (++count % every === 0) this.report(levels);
    };
    this.timer = this.clock.setTimeout(tick, step);
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  close(): void {
    this.stop();
    this.setInput(undefined);
    this.setOutput(undefined);
  }
}
