import type { QualityOptions } from './options.js';
import { PerceivedLatencyMeter, type PerceivedMarks } from './perceived.js';
import { summarizeQuality, type QualityReport } from './report.js';
import { callQuality, UNKNOWN_QUALITY, type CallQuality, type QualitySample } from './sample.js';
import type { Attempt } from '../attempt.js';
import { systemClock, type Clock } from '../../clock.js';
import type { SessionEffect } from '../effects.js';
import { QualitySampler } from './sampler.js';

/** Samples kept for the report: a day at one a second; older ones are dropped first. */
export const MAX_QUALITY_SAMPLES = 86_400;

export interface QualityTrackerDeps {
  /** A new quality value (each sample whose contract fields changed). */
  changed: (quality: CallQuality, sample: QualitySample) => void;
  clock?: Clock;
}

const round = (v: number | null, digits: number) => (v === null ? null : Number(v.toFixed(digits)));

/**
 * The session's call quality, an effect: samples the connected attempt's statistics once a
 * second, keeps the current value for the snapshot and the samples for the report, counts
 * recoveries, and measures each voice turn's perceived latency from the audio levels.
 */
export class QualityTracker implements SessionEffect {
  private current: CallQuality = UNKNOWN_QUALITY;
  private readonly samples: QualitySample[] = [];
  private reconnects = 0;
  private readonly sampler: QualitySampler | undefined;
  private readonly perceived: PerceivedLatencyMeter;
  private readonly now: () => number;
  private stats: (() => Promise<RTCStatsReport>) | undefined;
  private lastJitterBufferMs: number | null = null;

  constructor(private readonly deps: QualityTrackerDeps, options: QualityOptions = {}) {
    const intervalMs = options.intervalMs ?? 1000;
    if (!(intervalMs >= 0)) throw new RangeError(`quality.intervalMs must be >= 0, got ${intervalMs}`);
    this.sampler =
      intervalMs === 0
        ? undefined
        : new QualitySampler({
            getStats: () => this.stats?.(),
            onSample: (s) => this.add(s),
            intervalMs,
            ...(options.windowMs !== undefined ? { windowMs: options.windowMs } : {}),
            ...(deps.clock ? { clock: deps.clock } : {}),
          });
    this.perceived = new PerceivedLatencyMeter(options.perceivedLatency);
    const clock = deps.clock ?? systemClock;
    this.now = () => clock.now();
  }

  /** The latest value (contract fields), `unknown` until measured. */
  get quality(): CallQuality {
    return this.current;
  }

  /** A connection is up (the first or a recovered one): sample it. */
  connected(attempt: Pick<Attempt, 'transport'>): void {
    const transport = attempt.transport;
    this.stats = transport.getStats ? () => transport.getStats!() : undefined;
    this.sampler?.reset();
    this.sampler?.start();
  }

  /** The connection dropped: a recovery (`reconnecting`) begins. */
  lost(): void {
    this.stats = undefined;
    this.reconnects++;
    this.lastJitterBufferMs = null;
    this.sampler?.reset();
    this.perceived.reset();
  }

  /** Audio levels (the `level` event's readings). */
  level(input: number | null, output: number | null): void {
    this.perceived.level(this.now(), input, output);
  }

  /** The measured ends of the perceived latency of a turn that just finished: null for typed questions or when not measured. */
  turnFinished(input: 'voice' | 'text'): PerceivedMarks | null {
    const measured = this.perceived.take();
    return input === 'voice' ? measured : null;
  }

  /** The receiver's mean jitter-buffer delay in the latest sample (ms); null before one measured it. */
  get jitterBufferMs(): number | null {
    return this.lastJitterBufferMs;
  }

  report(): QualityReport {
    return summarizeQuality(this.samples, this.reconnects);
  }

  close(): void {
    this.stats = undefined;
    this.sampler?.stop();
  }

  private add(sample: QualitySample): void {
    this.samples.push(sample);
    if (this.samples.length > MAX_QUALITY_SAMPLES) this.samples.shift();
    if (sample.jitterBufferMs !== null) this.lastJitterBufferMs = sample.jitterBufferMs;
    const q = callQuality(sample);
    const next: CallQuality = Object.freeze({
      level: q.level, mos: round(q.mos, 2), rttMs: round(q.rttMs, 1), jitterMs: round(q.jitterMs, 1), packetLossPct: round(q.packetLossPct, 2),
    });
    const c = this.current;
    if (c.level === next.level && c.mos === next.mos && c.rttMs === next.rttMs && c.jitterMs === next.jitterMs && c.packetLossPct === next.packetLossPct) return;
    this.current = next;
    this.deps.changed(next, sample);
  }
}
