// Small statistics used by every benchmark. The percentile is kb-voice-qa's (kb-voice-qa/load):
// nearest rank, as the QA reports and the client's report().quality compute it, so a bench p50
// and a QA p50 of the same data are the same number (a measured value, never an interpolation).
import { ensureBuilt } from './common.mjs';

ensureBuilt();
const { percentile: nearestRank } = await import('kb-voice-qa/load');

/** Sorted copy (ascending) of the finite numbers in `xs`. */
export function sorted(xs) {
  return xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
}

/** Percentile `p` (0..100) of the finite numbers in `xs`, nearest rank (kb-voice-qa's). NaN for no data. */
export function percentile(xs, p) {
  return nearestRank(sorted(xs), p) ?? Number.NaN;
}

export const median = (xs) => percentile(xs, 50);

export function mean(xs) {
  const s = xs.filter((x) => Number.isFinite(x));
  return s.length ? s.reduce((a, b) => a + b, 0) / s.length : Number.NaN;
}

/**
 * Ordinary least-squares line through (x, y) pairs: `{ slope, intercept, r2, n }`.
 * `r2` says how much of the variance the line explains (a flat, noisy series has r2 near 0).
 */
export function linearRegression(xs, ys) {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return { slope: Number.NaN, intercept: Number.NaN, r2: Number.NaN, n };
  let sx = 0, sy = 0;
  for (let i = 0; i < n; i++) { sx += xs[i]; sy += ys[i]; }
  const mx = sx / n, my = sy / n;
  let sxx = 0, sxy = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i] - mx, dy = ys[i] - my;
    sxx += dx * dx; sxy += dx * dy; syy += dy * dy;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = my - slope * mx;
  const r2 = sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept, r2, n };
}

/** Summary of a sample of durations: n, min, p50, p90, p99, max, mean. */
export function summarize(xs) {
  const s = sorted(xs);
  return {
    n: s.length,
    min: s[0] ?? Number.NaN,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? Number.NaN,
    mean: mean(s),
  };
}

/** Rounds for display/JSON without losing the sign of tiny values. */
export function round(x, digits = 2) {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * Percentile-bootstrap confidence interval of `stat(b) - stat(a)` (default: difference of
 * medians), resampling each sample independently: `{ low, high, level }`. `random` draws the
 * resamples: pass a seeded one (kb-voice-emulator/lab's `seededRandom(1)`, the one PRNG of the
 * repository) so the interval is reproducible for given data.
 */
export function bootstrapDiffCI(a, b, { random, stat = median, iterations = 2000, level = 0.95 }) {
  const next = random;
  const pick = (xs) => Array.from({ length: xs.length }, () => xs[Math.floor(next() * xs.length)]);
  const diffs = [];
  for (let i = 0; i < iterations; i++) diffs.push(stat(pick(b)) - stat(pick(a)));
  const alpha = (1 - level) / 2;
  return { low: percentile(diffs, alpha * 100), high: percentile(diffs, (1 - alpha) * 100), level };
}
