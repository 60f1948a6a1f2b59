import type { QualitySample } from './sample.js';

/** `report().quality` (CONTRACT.md): the call's quality over all its samples; null where nothing was measured. */
export interface QualityReport {
  samples: number;
  mos: { min: number | null; mean: number | null };
  rttMs: { p50: number | null; p95: number | null };
  jitterMs: { p50: number | null; p95: number | null };
  packetLossPct: { mean: number | null; max: number | null };
  /** How many times the call went through `reconnecting`. */
  reconnects: number;
}

/** The value at percentile `p` (0–100) of sorted values, nearest rank; null when empty. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const values = (samples: readonly QualitySample[], key: 'mos' | 'rttMs' | 'jitterMs' | 'packetLossPct') =>
  samples.map((s) => s[key]).filter((v): v is number => v !== null);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const round = (v: number | null, digits: number) => (v === null ? null : Number(v.toFixed(digits)));

/** Sums up a call's samples. */
export function summarizeQuality(samples: readonly QualitySample[], reconnects: number): QualityReport {
  const mos = values(samples, 'mos');
  const rtt = values(samples, 'rttMs').sort((a, b) => a - b);
  const jitter = values(samples, 'jitterMs').sort((a, b) => a - b);
  const loss = values(samples, 'packetLossPct');
  return {
    samples: samples.length,
    mos: { min: round(mos.length ? Math.min(...mos) : null, 2), mean: round(mean(mos), 2) },
    rttMs: { p50: round(percentile(rtt, 50), 1), p95: round(percentile(rtt, 95), 1) },
    jitterMs: { p50: round(percentile(jitter, 50), 1), p95: round(percentile(jitter, 95), 1) },
    packetLossPct: { mean: round(mean(loss), 2), max: round(loss.length ? Math.max(...loss) : null, 2) },
    reconnects,
  };
}
