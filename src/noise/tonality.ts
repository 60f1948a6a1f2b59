/**
 * Tones are not voice: rnnoise's VAD scores a steady beep (a phone, a microwave, a test tone) as
 * voice, so the gate asks this too. A tone keeps nearly all its energy in one or two narrow peaks
 * of its spectrum, at the same frequency frame after frame; voice moves (pitch, formants).
 */

import { fft } from './fft.js';

const SIZE = 512;
const window = Float32Array.from({ length: 480 }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / 479));
const re = new Float32Array(SIZE);
const im = new Float32Array(SIZE);
const power = new Float32Array(SIZE / 2);

/** Share of a frame's energy in its two strongest peaks above which it may be a tone. */
export const TONAL_SHARE = 0.9;
/** Frames in a row, peaked at the same frequency, that make a tone (80 ms): voice never holds that still. */
export const TONAL_FRAMES = 8;

let strongest = 0;

/** The bin of the strongest peak of the frame {@link peakShare} measured last. */
export function peakBin(): number {
  return strongest;
}

/** Share of the frame's energy (0-1) in its two strongest spectral peaks (±1 bin each, 94 Hz bins at 48 kHz). */
export function peakShare(frame: Float32Array): number {
  re.fill(0);
  im.fill(0);
  for (let i = 0; i < frame.length && i < 480; i++) re[i] = frame[i]! * window[i]!;
  fft(re, im);
  let total = 0;
  for (let k = 1; k < SIZE / 2; k++) total += power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
  if (total <= 1e-12) return 0;
  let share = 0;
  for (let peak = 0; peak < 2; peak++) {
    let best = 1;
    for (let k = 2; k < SIZE / 2; k++) if (power[k]! > power[best]!) best = k;
    if (peak === 0) strongest = best;
    for (let k = best - 1; k <= best + 1; k++) {
      if (k <= 0 || k >= SIZE / 2) continue;
      share += power[k]!;
      power[k] = 0;
    }
  }
  return share / total;
}

/**
 * Follows frames and says which belong to a tone: {@link TONAL_FRAMES} frames in a row whose energy
 * sits in two peaks ({@link TONAL_SHARE}) with the strongest at the same frequency (±1 bin). On the
 * TTS fixtures no speech frame qualifies; a beep does from its 80th ms.
 */
export class ToneDetector {
  private streak = 0;
  private bin = -2;

  push(frame: Float32Array): boolean {
    const peaked = peakShare(frame) > TONAL_SHARE;
    const bin = strongest;
    this.streak = peaked ? (Math.abs(bin - this.bin) <= 1 ? this.streak + 1 : 1) : 0;
    this.bin = bin;
    return this.streak >= TONAL_FRAMES;
  }
}
