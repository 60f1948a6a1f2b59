/**
 * Is this 10 ms of the caller's audio a voice? libfvad answers "speech-band energy", which beeps,
 * hum, music and coughs also have; barge-in needs more. Per frame, over the last 32 ms at 16 kHz:
 *
 * - periodicity: the normalized autocorrelation peak over pitch lags 2.5-14 ms (70-400 Hz). Voiced
 *   speech is periodic; coughs, fans, clicks and keyboard noise are not.
 * - flatness: the spectral flatness (geometric / arithmetic mean of the power spectrum). Noise is
 *   flat (near 1), harmonic sound is peaky (near 0).
 * - zero-crossing rate: hiss and clicks cross zero far more often than voiced speech.
 * - level: below {@link MIN_VOICE_DBFS} nothing is a voice.
 *
 * A frame is voice-like when all of them say so. Beeps, hum and music notes are periodic too: what
 * tells them from a voice is that their pitch holds still, while a voice's moves from frame to frame
 * (intonation, jitter). That is a property of a run of frames, judged with the rest (how long, how
 * much of it voice-like) by the barge-in judge (./barge-in.ts) from {@link FrameFeatures.pitchHz}.
 */

const WINDOW = 512; // 32 ms at 16 kHz
const FRAME = 160; // 10 ms
const MIN_LAG = 40; // 400 Hz
const MAX_LAG = 230; // ~70 Hz
/** Quieter than this is never a voice (a microphone's own noise floor is around -60 dBFS). */
export const MIN_VOICE_DBFS = -55;

export interface FrameFeatures {
  /** RMS level of the 10 ms frame (dBFS). */
  dbfs: number;
  /** 0..1: normalized autocorrelation peak in the pitch range. */
  periodicity: number;
  /** Pitch (Hz) at that peak; 0 when not periodic. */
  pitchHz: number;
  /** 0..1: spectral flatness (80-4000 Hz). */
  flatness: number;
  /** Zero crossings per sample. */
  zcr: number;
}

export interface VoiceLikenessThresholds {
  minPeriodicity: number;
  maxFlatness: number;
  maxZcr: number;
}

/**
 * Thresholds of {@link isVoiceLike}, measured on the speech fixtures (espeak, Flite and formant
 * voices: voiced frames have periodicity 0.7-1, flatness < 0.05) and the lab's noise fixtures
 * (coughs, keyboard and fans: periodicity ~0.2-0.3, flatness ~0.4).
 */
export const VOICE_LIKENESS: Readonly<VoiceLikenessThresholds> = { minPeriodicity: 0.5, maxFlatness: 0.3, maxZcr: 0.25 };

/**
 * OpenAI's `turn_detection.threshold` (0..1, default 0.5: "a higher threshold will require louder
 * audio to activate the model") as the periodicity a frame needs: 0.5 → the default 0.5; 0 → 0.3
 * (more frames count as voice); 1 → 0.9 (only clearly periodic ones).
 */
export function thresholdsFor(threshold: number): VoiceLikenessThresholds {
  const t = Math.max(0, Math.min(1, threshold));
  return { ...VOICE_LIKENESS, minPeriodicity: t <= 0.5 ? 0.3 + 0.4 * t : 0.5 + 0.8 * (t - 0.5) };
}

export function isVoiceLike(f: FrameFeatures, t: VoiceLikenessThresholds = VOICE_LIKENESS): boolean {
  return f.dbfs >= MIN_VOICE_DBFS && f.periodicity >= t.minPeriodicity && f.flatness <= t.maxFlatness && f.zcr <= t.maxZcr;
}

/** Streaming analysis of 16 kHz frames (each call: one 10 ms frame of 160 samples). */
export class VoiceLikeness {
  readonly #window = new Float64Array(WINDOW);
  readonly #re = new Float64Array(WINDOW);
  readonly #im = new Float64Array(WINDOW);
  readonly #hann = Float64Array.from({ length: WINDOW }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (WINDOW - 1)));

  analyze(frame: Int16Array): FrameFeatures {
    if (frame.length !== FRAME) throw new RangeError(`VoiceLikeness analyzes 10 ms frames of ${FRAME} samples, got ${frame.length}`);
    const w = this.#window;
    w.copyWithin(0, FRAME);
    let energy = 0;
    let crossings = 0;
    for (let i = 0; i < FRAME; i++) {
      const x = frame[i]! / 32768;
      w[WINDOW - FRAME + i] = x;
      energy += x * x;
      if (i > 0 && (frame[i]! >= 0) !== (frame[i - 1]! >= 0)) crossings++;
    }
    const dbfs = energy > 0 ? 10 * Math.log10(energy / FRAME) : -Infinity;
    const zcr = crossings / FRAME;
    if (dbfs < MIN_VOICE_DBFS) return { dbfs, periodicity: 0, pitchHz: 0, flatness: 1, zcr };
    const { periodicity, lag } = this.#periodicity();
    return { dbfs, periodicity, pitchHz: lag > 0 ? 16000 / lag : 0, flatness: this.#flatness(), zcr };
  }

  /** Normalized autocorrelation of the newest 25 ms against its past, best pitch lag. */
  #periodicity(): { periodicity: number; lag: number } {
    const w = this.#window;
    const len = WINDOW - MAX_LAG;
    const start = WINDOW - len;
    let best = 0;
    let bestLag = 0;
    let e0 = 0;
    for (let i = start; i < WINDOW; i++) e0 += w[i]! * w[i]!;
    if (e0 === 0) return { periodicity: 0, lag: 0 };
    for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) {
      const r = this.#corr(lag, start, e0);
      if (r > best) {
        best = r;
        bestLag = lag;
      }
    }
    // Parabolic interpolation of the peak: pitch to a fraction of a sample (a 1-sample lag step is ~1% at 150 Hz).
    let fine = bestLag;
    if (bestLag > MIN_LAG && bestLag < MAX_LAG) {
      const a = this.#corr(bestLag - 1, start, e0);
      const c = this.#corr(bestLag + 1, start, e0);
      const d = a - 2 * best + c;
      if (d < 0) fine = bestLag + Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / d));
    }
    return { periodicity: best, lag: fine };
  }

  #corr(lag: number, start: number, e0: number): number {
    const w = this.#window;
    let c = 0;
    let e1 = 0;
    for (let i = start; i < WINDOW; i++) {
      c += w[i]! * w[i - lag]!;
      e1 += w[i - lag]! * w[i - lag]!;
    }
    return e1 > 0 ? c / Math.sqrt(e0 * e1) : 0;
  }

  /** Spectral flatness of the Hann-windowed 32 ms over 80-4000 Hz. */
  #flatness(): number {
    const re = this.#re;
    const im = this.#im;
    for (let i = 0; i < WINDOW; i++) {
      re[i] = this.#window[i]! * this.#hann[i]!;
      im[i] = 0;
    }
    fft(re, im);
    const lo = Math.ceil((80 * WINDOW) / 16000);
    const hi = Math.floor((4000 * WINDOW) / 16000);
    let total = 0;
    let logSum = 0;
    for (let k = lo; k <= hi; k++) {
      const p = re[k]! * re[k]! + im[k]! * im[k]! + 1e-12;
      total += p;
      logSum += Math.log(p);
    }
    const bins = hi - lo + 1;
    return Math.exp(logSum / bins) / (total / bins);
  }
}

/** In-place radix-2 FFT (length a power of two). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const step = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = Math.cos(step * k);
        const wi = Math.sin(step * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}
