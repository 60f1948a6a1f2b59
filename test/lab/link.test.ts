import { describe, expect, it } from 'vitest';
import { LinkImpairment, NETWORK_PROFILES, PROFILE_NAMES, resolveProfile, seededRandom } from 'kb-voice-emulator/lab';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};

/** Offers `n` packets `spacingMs` apart; returns each one's arrival (null: lost). */
function run(link: LinkImpairment, n: number, spacingMs: number, bytes = 100): (number | null)[] {
  const out: (number | null)[] = [];
  for (let i = 0; i < n; i++) out.push(link.decide(i * spacingMs, bytes));
  return out;
}

/** Lengths of the runs of consecutive losses. */
function bursts(fates: (number | null)[]): number[] {
  const lengths: number[] = [];
  let run = 0;
  for (const f of fates) {
    if (f === null) run++;
    else if (run > 0) (lengths.push(run), (run = 0));
  }
  if (run > 0) lengths.push(run);
  return lengths;
}

describe('LinkImpairment', () => {
  it('loses packets at random at the given rate', () => {
    const fates = run(new LinkImpairment({ lossPct: 5 }, seededRandom(1)), 20_000, 20);
    const lost = fates.filter((f) => f === null).length / fates.length;
    expect(lost).toBeGreaterThan(0.045);
    expect(lost).toBeLessThan(0.055);
    // independent losses: mean run of losses is 1/(1-p) ≈ 1.05
    expect(mean(bursts(fates))).toBeLessThan(1.15);
  });

  it('loses in Gilbert–Elliott bursts with the given mean length and overall rate', () => {
    const fates = run(new LinkImpairment({ lossPct: 10, burstLength: 4 }, seededRandom(2)), 50_000, 20);
    const lost = fates.filter((f) => f === null).length / fates.length;
    expect(lost).toBeGreaterThan(0.09);
    expect(lost).toBeLessThan(0.11);
    const b = bursts(fates);
    expect(mean(b)).toBeGreaterThan(3.6);
    expect(mean(b)).toBeLessThan(4.4);
  });

  it('delays by delayMs with jitterMs of standard deviation, in order', () => {
    const link = new LinkImpairment({ delayMs: 100, jitterMs: 20 }, seededRandom(3));
    // far apart, so order never holds a packet back
    const delays = run(link, 5000, 1000).map((at, i) => at! - i * 1000);
    expect(mean(delays)).toBeGreaterThan(98);
    expect(mean(delays)).toBeLessThan(102);
    expect(std(delays)).toBeGreaterThan(18.5);
    expect(std(delays)).toBeLessThan(21.5);
    // close together: the jitter never reorders them
    const close = run(new LinkImpairment({ delayMs: 50, jitterMs: 30 }, seededRandom(4)), 2000, 20) as number[];
    for (let i = 1; i < close.length; i++) expect(close[i]).toBeGreaterThanOrEqual(close[i - 1]!);
  });

  it('reorders the given share of packets', () => {
    const link = new LinkImpairment({ delayMs: 20, reorderPct: 5, reorderDelayMs: 60 }, seededRandom(5));
    const arrivals = run(link, 20_000, 20) as number[];
    const share = link.counters.reordered / arrivals.length;
    expect(share).toBeGreaterThan(0.04);
    expect(share).toBeLessThan(0.06);
    // what the receiver sees: a packet arriving after one offered later than it
    let overtaken = 0;
    for (let i = 0; i < arrivals.length - 1; i++) if (arrivals[i]! > arrivals[i + 1]!) overtaken++;
    // (two held packets in a row show as one inversion between neighbours)
    expect(overtaken).toBeLessThanOrEqual(link.counters.reordered);
    expect(overtaken).toBeGreaterThan(0.9 * link.counters.reordered);
  });

  it('caps the bandwidth and drops what would queue too long', () => {
    // 125 bytes = 1000 bits = 10 ms at 100 kbit/s
    const link = new LinkImpairment({ bandwidthKbps: 100, queueMs: 50 }, seededRandom(6));
    const fates = run(link, 20, 0, 125);
    const delivered = fates.filter((f): f is number => f !== null);
    expect(delivered).toEqual([10, 20, 30, 40, 50, 60]);
    expect(link.counters.dropped).toBe(14);
    // paced at the link's rate, nothing is dropped or queued
    const paced = new LinkImpairment({ bandwidthKbps: 100 }, seededRandom(7));
    expect(run(paced, 50, 10, 125).every((at, i) => at === i * 10 + 10)).toBe(true);
  });

  it('passes nothing during an outage and everything after', () => {
    const link = new LinkImpairment({}, seededRandom(8));
    link.addOutage(1000, 5000);
    const fates = run(link, 400, 20);
    fates.forEach((f, i) => expect(f === null).toBe(i * 20 >= 1000 && i * 20 < 5000));
    expect(link.counters.outageDropped).toBe(200);
    link.addOutage(9000, Infinity);
    expect(link.decide(10_000, 10)).toBeNull();
    link.clearOutages();
    expect(link.decide(10_020, 10)).toBe(10_020);
  });

  it('repeats the same fates for the same seed', () => {
    const a = run(new LinkImpairment(NETWORK_PROFILES['3g-poor'].up, seededRandom(9)), 500, 20);
    const b = run(new LinkImpairment(NETWORK_PROFILES['3g-poor'].up, seededRandom(9)), 500, 20);
    expect(a).toEqual(b);
  });

  it('rejects conditions out of range and unknown profiles with a clear error', () => {
    expect(() => new LinkImpairment({ lossPct: 101 }, Math.random)).toThrow(/lossPct must be a number in 0\.\.100, got 101/);
    expect(() => new LinkImpairment({ burstLength: 0.5 }, Math.random)).toThrow(/burstLength/);
    expect(() => resolveProfile('5g' as never)).toThrow(/Unknown network profile "5g"; known: none, wifi/);
    expect(() => resolveProfile({ up: { delayMs: -1 }, down: {} })).toThrow(/up\.delayMs/);
    for (const name of PROFILE_NAMES) expect(resolveProfile(name)).toBe(NETWORK_PROFILES[name]);
  });
});
