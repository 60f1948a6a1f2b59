/** A source of uniform numbers in [0, 1): `Math.random` or a seeded one, so lab runs repeat. */
export type Random = () => number;

/**
 * mulberry32: a small, fast 32-bit generator, plenty for packet fates, the formant voice's breath
 * noise and the noise beds of tests and benchmarks (the repository's one PRNG: bench/ and test/ take
 * it from here, kb-voice-emulator/lab; not for cryptography).
 * The same seed gives the same sequence, so a test's losses and delays repeat exactly.
 */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal deviate (Box–Muller). */
export function normal(random: Random): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
