// One percentile: kb-voice-qa's (its reports, and bench/ through kb-voice-qa/load) answers as the
// client's report().quality does (nearest rank), and never an interpolated value no sample had.
import { describe, expect, it } from 'vitest';
import { percentile as clientPercentile } from '../../src/client/quality/report.js';
import { percentile } from '../../qa/src/stats.js';
import { percentiles } from '../../qa/src/reporter/summary.js';
import { seededRandom } from '../../emulator/src/lab/random.js';

describe('percentile (nearest rank)', () => {
  it('gives what the client gives, for any sample and rank', () => {
    const random = seededRandom(44);
    for (let n = 1; n <= 40; n++) {
      const values = Array.from({ length: n }, () => Math.round(random() * 1000));
      const sorted = [...values].sort((a, b) => a - b);
      for (const p of [0, 1, 10, 25, 50, 75, 90, 95, 99, 100]) expect(percentile(values, p)).toBe(clientPercentile(sorted, p));
    }
  });

  it('is a measured value: the p50 of 100 and 300 is 100, not 200', () => {
    expect(percentile([300, 100], 50)).toBe(100);
    expect(percentile([300, 100], 51)).toBe(300);
    expect(percentiles([300, 100])).toEqual({ p50: 100, p95: 300, p99: 300 });
  });

  it("is bench/'s percentile too (bench and QA give the same p50 for the same data)", async () => {
    process.env.BENCH_NO_BUILD = '1'; // kb-voice-qa/load resolves to its source here: no build needed
    const bench = (await import(new URL('../../bench/lib/stats.mjs', import.meta.url).href)) as { percentile(xs: number[], p: number): number; summarize(xs: number[]): { p50: number } };
    expect(bench.percentile([300, 100], 50)).toBe(100);
    const random = seededRandom(7);
    const values = Array.from({ length: 25 }, () => random() * 100);
    for (const p of [10, 50, 90, 95, 99]) expect(bench.percentile(values, p)).toBe(percentile(values, p));
    expect(bench.summarize(values).p50).toBe(percentile(values, 50));
    expect(Number.isNaN(bench.percentile([], 50))).toBe(true);
  });

  it('is null with no values', () => {
    expect(percentile([], 50)).toBeNull();
  });
});
