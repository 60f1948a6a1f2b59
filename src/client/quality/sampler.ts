import { sampleBetween, type QualitySample } from './sample.js';
import { readStats, type StatsReading } from './stats.js';

import { systemClock, type Clock } from '../../clock.js';

export interface QualitySamplerOptions {
  /** The current connection's `getStats()`; undefined while there is no connection. */
  getStats: () => Promise<{ forEach(cb: (value: unknown) => void): void }> | undefined;
  onSample: (sample: QualitySample) => void;
  /** Between samples (ms); default 1000. */
  intervalMs?: number;
  /** The span a sample's loss and rates cover (ms); default 5000 ("the last few seconds"). */
  windowMs?: number;
  /** The session's clock (fake in tests). */
  clock?: Clock;
}

/**
 * Samples the connection's statistics about once a second and reports a {@link QualitySample}
 * over the last `windowMs`. Readings of an older connection are forgotten by {@link reset} (a
 * new peer connection's counters start again from zero); a reading whose counters went backwards
 * starts a new window too.
 */
export class QualitySampler {
  private readings: StatsReading[] = [];
  private timer: unknown;
  private busy = false;
  private generation = 0;
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly windowMs: number;

  constructor(private readonly options: QualitySamplerOptions) {
    this.clock = options.clock ?? systemClock;
    this.intervalMs = options.intervalMs ?? 1000;
    this.windowMs = options.windowMs ?? 5000;
  }

  start(): void {
    if (this.timer !== undefined) return;
    const next = () => {
      this.timer = this.clock.setTimeout(() => {
        next();
        void this.tick();
      }, this.intervalMs);
    };
    next();
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A new connection: its counters are not comparable with the old one's. */
  reset(): void {
    this.readings = [];
    this.generation++;
  }

  /** Takes one reading now and reports a sample when there is an older one to compare with. */
  async tick(): Promise<void> {
    if (this.busy) return; // a slow getStats() is not queued behind itself
    const pending = this.options.getStats();
    if (!pending) return;
    this.busy = true;
    const generation = this.generation;
    try {
      const report = await pending;
      if (generation !== this.generation) return;
      this.add(readStats(report, this.clock.now()));
    } catch {
      // the connection closed while reading: the next tick reads the next connection
    } finally {
      this.busy = false;
    }
  }

  private add(reading: StatsReading): void {
    const last = this.readings.at(-1);
    if (last && wentBack(last, reading)) this.readings = [];
    this.readings.push(reading);
    // keep the newest reading at least windowMs old as the window's start
    while (this.readings.length > 2 && reading.at - this.readings[1]!.at >= this.windowMs) this.readings.shift();
    if (this.readings.length < 2) return;
    this.options.onSample(sampleBetween(this.readings[0]!, reading));
  }
}

function wentBack(a: StatsReading, b: StatsReading): boolean {
  return (
    (a.inbound !== null && b.inbound !== null && b.inbound.packetsReceived < a.inbound.packetsReceived) ||
    (a.outbound !== null && b.outbound !== null && b.outbound.packetsSent < a.outbound.packetsSent)
  );
}
