/**
 * Small PCM16 helpers for the realtime peer: channel down-mixing, sample-rate conversion and
 * measurements. Quality needs are modest (voice-activity detection, recordings, a speech track), so
 * conversion is linear interpolation with a box pre-filter when decimating.
 */

/** Mono PCM16 with its rate. */
export interface Pcm {
  samples: Int16Array;
  sampleRate: number;
}

/** Averages interleaved channels into one. */
export function toMono(samples: Int16Array, channels: number): Int16Array {
  if (channels <= 1) return samples;
  const frames = Math.floor(samples.length / channels);
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += samples[i * channels + c]!;
    out[i] = Math.round(sum / channels);
  }
  return out;
}

/**
 * Converts `samples` from rate `from` to rate `to`. When the ratio is an integer decimation (48 kHz
 * to 16 kHz) each output sample is the mean of its input block, which also acts as the low-pass
 * filter; otherwise the input is interpolated linearly (after a box filter when decimating).
 */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to || samples.length === 0) return samples;
  const ratio = from / to;
  if (Number.isInteger(ratio)) {
    const out = new Int16Array(Math.floor(samples.length / ratio));
    for (let i = 0; i < out.length; i++) {
      let sum = 0;
      for (let k = 0; k < ratio; k++) sum += samples[i * ratio + k]!;
      out[i] = Math.round(sum / ratio);
    }
    return out;
  }
  const up = to / from;
  if (Number.isInteger(up)) return upsample(samples, up);
  const src = ratio > 1 ? boxFilter(samples, Math.ceil(ratio)) : samples;
  const outLength = Math.max(1, Math.round(samples.length / ratio));
  const out = new Int16Array(outLength);
  for (let i = 0; i < outLength; i++) {
    const pos = i * ratio;
    const i0 = Math.min(Math.floor(pos), src.length - 1);
    const i1 = Math.min(i0 + 1, src.length - 1);
    const frac = pos - i0;
    out[i] = Math.round(src[i0]! * (1 - frac) + src[i1]! * frac);
  }
  return out;
}

/**
 * Linear interpolation by an integer factor (16 kHz speech to 48 kHz frames, every synthesized
 * sentence on the thread that paces audio): the same values as the general path, without its
 * per-sample floating-point position and bounds checks (about 2.5 times faster).
 */
function upsample(samples: Int16Array, up: number): Int16Array {
  const out = new Int16Array(samples.length * up);
  const last = samples.length - 1;
  for (let i = 0; i <= last; i++) {
    const a = samples[i]!;
    const step = (samples[i < last ? i + 1 : last]! - a) / up;
    const o = i * up;
    out[o] = a;
    for (let k = 1; k < up; k++) out[o + k] = Math.round(a + step * k);
  }
  return out;
}

function boxFilter(samples: Int16Array, width: number): Int16Array {
  const out = new Int16Array(samples.length);
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    sum += samples[i]!;
    if (i >= width) sum -= samples[i - width]!;
    out[i] = Math.round(sum / Math.min(i + 1, width));
  }
  return out;
}

/** Joins chunks into one array, keeping at most the first `maxLength` samples. */
export function concat(chunks: readonly Int16Array[], maxLength = Infinity): Int16Array {
  let length = 0;
  for (const c of chunks) length += c.length;
  const out = new Int16Array(Math.min(length, maxLength));
  let offset = 0;
  for (const c of chunks) {
    if (offset >= out.length) break;
    out.set(c.subarray(0, out.length - offset), offset);
    offset += c.length;
  }
  return out;
}

/** Root-mean-square level in 0..1. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / samples.length) / 32768;
}

/** Duration in ms of mono samples. */
export function durationMs(sampleCount: number, sampleRate: number): number {
  return (sampleCount / sampleRate) * 1000;
}

/** RMS level of 16 kHz `samples` in dBFS over the parts that carry sound (-Infinity for silence). */
export function activeLevelDbfs(samples: Int16Array): number {
  // Active level, simply: RMS over the 10 ms blocks within 30 dB of the loudest (P.56 in spirit).
  const block = 160;
  const energies: number[] = [];
  for (let i = 0; i + block <= samples.length; i += block) {
    let e = 0;
    for (let k = i; k < i + block; k++) e += samples[k]! * samples[k]!;
    energies.push(e / block);
  }
  const peak = Math.max(0, ...energies);
  if (peak === 0) return -Infinity;
  const active = energies.filter((e) => e >= peak / 1000);
  const mean = active.reduce((a, b) => a + b, 0) / active.length;
  return 10 * Math.log10(mean / (32768 * 32768));
}
