/**
 * A MOS estimate from the ITU-T G.107 E-model, simplified for an Opus voice call. docs/quality.md
 * explains each term.
 *
 *   R   = Ro − Is − Id − Ie,eff + A                  (G.107 §7.1)
 *       = 93.2 − Id − Ie,eff                          (default Ro − Is = 94.77 − 1.43; A = 0)
 *   Id  = 0.024·d + 0.11·(d − 177.3)·H(d − 177.3)    (Cole & Rosenbluth 2001, fit of G.107's Id for
 *                                                    echo-free calls; d = one-way mouth-to-ear delay, ms)
 *   Ie,eff = Ie + (95 − Ie) · Ppl / (Ppl/BurstR + Bpl)    (G.107 §7.5; Ppl = loss in %)
 *   MOS = 1 + 0.035·R + 7·10⁻⁶·R·(R − 60)·(100 − R)  for 0 < R < 100 (G.107 Annex B);
 *         1 at R ≤ 0, 4.5 at R ≥ 100
 *
 * Opus has no narrowband Ie/Bpl in ITU-T G.113; we use Ie = 0 (Opus at voice bitrates is
 * transparent on the narrowband scale) and Bpl = 25.1, G.113 Appendix I's value for G.711 with
 * packet-loss concealment — Opus conceals at least as well, so the estimate errs low. BurstR = 1
 * (random loss) unless a burst ratio is known.
 */

/** Ro − Is with G.107's default values: the best R of a narrowband call. */
export const R_DEFAULT = 93.2;
/** Equipment impairment of the codec without loss. */
export const OPUS_IE = 0;
/** Packet-loss robustness of the codec (G.113 Appendix I, G.711 with PLC). */
export const OPUS_BPL = 25.1;
/**
 * Fixed one-way delay of the voice path besides the network and the jitter buffer (ms): one 20 ms
 * Opus frame of packetization plus the encoder's 6.5 ms look-ahead (RFC 6716 §2).
 */
export const CODEC_DELAY_MS = 26.5;

/** Delay impairment Id for a one-way mouth-to-ear delay (ms). */
export function delayImpairment(delayMs: number): number {
  const d = Math.max(0, delayMs);
  return 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0);
}

/** Effective equipment impairment Ie,eff for a packet loss in percent. */
export function lossImpairment(lossPct: number, { ie = OPUS_IE, bpl = OPUS_BPL, burstR = 1 } = {}): number {
  const ppl = Math.min(100, Math.max(0, lossPct));
  return ie + ((95 - ie) * ppl) / (ppl / burstR + bpl);
}

/** MOS (1–4.5) from a transmission rating R (G.107 Annex B). */
export function rToMos(r: number): number {
  if (r <= 0) return 1;
  if (r >= 100) return 4.5;
  // the cubic dips just below 1 for R under ~6.5: the scale's floor is 1
  return Math.max(1, 1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r));
}

/** What the estimate needs, from the connection's statistics. */
export interface EModelInput {
  /** Round-trip time of the network (ms): half of it is the one-way network delay. */
  rttMs: number;
  /** Delay the receiver's jitter buffer adds (ms). */
  jitterBufferMs: number;
  /** Packet loss (%), the worse direction. */
  packetLossPct: number;
}

/**
 * The E-model's input from a window's measures. The jitter allowance is the network's: twice the
 * jitter, a usual jitter-buffer target. The buffer's measured delay (`jitterBufferMs` of a sample)
 * also holds the receiver's own playout slack — a Node caller whose audio device pulls slower than
 * real time grows it by seconds — so it is reported, not scored.
 */
export function measuredInput(m: { rttMs: number; jitterMs: number | null; packetLossPct: number }): EModelInput {
  return { rttMs: m.rttMs, packetLossPct: m.packetLossPct, jitterBufferMs: 2 * (m.jitterMs ?? 0) };
}

/** The transmission rating R of a call. */
export function rFactor(input: EModelInput): number {
  const d = input.rttMs / 2 + input.jitterBufferMs + CODEC_DELAY_MS;
  return R_DEFAULT - delayImpairment(d) - lossImpairment(input.packetLossPct);
}

/** The MOS estimate of a call (1–4.5). */
export function estimateMos(input: EModelInput): number {
  return rToMos(rFactor(input));
}

export type QualityLevel = 'excellent' | 'good' | 'fair' | 'poor' | 'unknown';

/**
 * Levels by MOS, at the R values where ITU-T G.109's user-satisfaction categories change:
 * excellent ≥ 4.02 (R ≥ 80, "satisfied" or better), good ≥ 3.60 (R ≥ 70, "some users
 * dissatisfied"), fair ≥ 3.10 (R ≥ 60, "many users dissatisfied"), poor below.
 */
export const LEVEL_THRESHOLDS = Object.freeze({ excellent: rToMos(80), good: rToMos(70), fair: rToMos(60) });

export function qualityLevel(mos: number | null): QualityLevel {
  if (mos === null || !Number.isFinite(mos)) return 'unknown';
  if (mos >= LEVEL_THRESHOLDS.excellent) return 'excellent';
  if (mos >= LEVEL_THRESHOLDS.good) return 'good';
  if (mos >= LEVEL_THRESHOLDS.fair) return 'fair';
  return 'poor';
}
