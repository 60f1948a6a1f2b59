/**
 * Percentiles as kb-voice-qa's reports and the repository's benchmarks compute them (bench/
 * imports this through `kb-voice-qa/load`): nearest rank, the definition the client's own
 * `report().quality` uses (src/client/quality/report.ts; browser code cannot import this package,
 * so that one stays there, and test/qa/percentile.test.ts holds the two to the same answers). The
 * nearest rank is always a measured value: a p50 of 100 and 300 ms is 100, not an interpolated 200
 * no turn had.
 */

/** The value at percentile `p` (0–100) of `values` (any order), nearest rank; null when there are none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}
