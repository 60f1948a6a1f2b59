/**
 * Long-term average spectrum of PCM16 audio, for telling voices apart in tests: a Hann-windowed
 * DFT of 1024-sample frames (hop 1024), averaged, in `bands` equal bands from 0 to `maxHz`
 * (default: `rate / 2`), as energy shares. Frames quieter than 1% of full scale are skipped
 * (pauses say nothing about the voice).
 */
export function averageSpectrum(samples: Int16Array, rate: number, bands = 24, maxHz = rate / 2): number[] {
  const N = 1024;
  const out = new Array<number>(bands).fill(0);
  const window = Float64Array.from({ length: N }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (N - 1)));
  const cos = Float64Array.from({ length: N }, (_, i) => Math.cos((2 * Math.PI * i) / N));
  const sin = Float64Array.from({ length: N }, (_, i) => Math.sin((2 * Math.PI * i) / N));
  const frame = new Float64Array(N);
  for (let start = 0; start + N <= samples.length; start += N) {
    let rms = 0;
    for (let i = 0; i < N; i++) {
      frame[i] = (samples[start + i]! / 32768) * window[i]!;
      rms += (samples[start + i]! / 32768) ** 2;
    }
    if (Math.sqrt(rms / N) < 0.01) continue;
    for (let k = 1; k < N / 2; k++) {
      let re = 0;
      let im = 0;
      for (let i = 0, j = 0; i < N; i++, j = (j + k) & (N - 1)) {
        re += frame[i]! * cos[j]!;
        im -= frame[i]! * sin[j]!;
      }
      const hz = (k * rate) / N;
      if (hz < maxHz) out[Math.floor((hz / maxHz) * bands)]! += re * re + im * im;
    }
  }
  const total = out.reduce((a, b) => a + b, 0) || 1;
  return out.map((e) => e / total);
}

/** Correlation (-1..1) of two spectra on a dB scale: their shapes, loudness aside. */
export function shapeCorrelation(a: number[], b: number[]): number {
  const db = (x: number[]) => x.map((e) => 10 * Math.log10(e + 1e-12));
  const [x, y] = [db(a), db(b)];
  const mean = (v: number[]) => v.reduce((s, e) => s + e, 0) / v.length;
  const [mx, my] = [mean(x), mean(y)];
  let xy = 0, xx = 0, yy = 0;
  x.forEach((e, i) => { xy += (e - mx) * (y[i]! - my); xx += (e - mx) ** 2; yy += (y[i]! - my) ** 2; });
  return xy / Math.sqrt(xx * yy);
}
