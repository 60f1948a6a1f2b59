import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES, FrameProcessor } from '../../../src/noise/frame-processor.js';
import { instantiateRnnoise } from '../../../src/noise/rnnoise-wasm.js';

// The frame processor with rnnoise itself (#46): one bad sample must not break the microphone for
// the rest of the call, and no render quantum length may lose samples.

const wasm = readFileSync(new URL('../../../node_modules/@sapphi-red/web-noise-suppressor/dist/rnnoise_simd.wasm', import.meta.url));

/** A voice-like signal: a few moving harmonics with an envelope (rnnoise scores it as voice). */
function voice(samples: number, from = 0): Float32Array {
  return Float32Array.from({ length: samples }, (_, k) => {
    const t = (from + k) / 48000;
    const f0 = 140 + 30 * Math.sin(2 * Math.PI * 3 * t);
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(2 * Math.PI * f0 * h * t) / h;
    return 0.15 * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t));
  });
}

const energy = (a: Float32Array) => a.reduce((sum, v) => sum + v * v, 0);

/** Runs `input` through `processor` in quanta of `quantum` samples; returns the output, same length. */
function run(processor: FrameProcessor, input: Float32Array, quantum: number): Float32Array {
  const output = new Float32Array(input.length);
  for (let i = 0; i < input.length; i += quantum) processor.process(input.subarray(i, i + quantum), output.subarray(i, i + quantum));
  return output;
}

describe('FrameProcessor: render quanta of any length', () => {
  it.each([128, 960, 961, 4096])('%i-sample quanta: every sample comes out once, delayed by one frame', (quantum) => {
    const input = Float32Array.from({ length: 48000 }, (_, k) => Math.sin(k / 7) * 0.5);
    const processor = new FrameProcessor((frame) => (frame.length, 1), false);
    const output = run(processor, input, quantum);
    // Without a gate, the output is the input one frame later: nothing lost, nothing repeated.
    const sent = output.subarray(FRAME_SAMPLES);
    const expected = input.subarray(0, input.length - FRAME_SAMPLES);
    const comparable = Math.floor(input.length / quantum) * quantum - 2 * FRAME_SAMPLES; // the last quantum may still be framing
    let firstDifference = -1;
    for (let k = 0; k < comparable && firstDifference < 0; k++) if (sent[k] !== expected[k]) firstDifference = k;
    expect(firstDifference).toBe(-1);
    expect(energy(sent.subarray(0, comparable)) / energy(expected.subarray(0, comparable))).toBeCloseTo(1, 6);
  });
});

describe('FrameProcessor with rnnoise: bad samples', () => {
  const bad: [string, number][] = [['NaN', Number.NaN], ['+Infinity', Number.POSITIVE_INFINITY], ['-Infinity', Number.NEGATIVE_INFINITY], ['1e34', 1e34]];

  it.each(bad)('one %s sample: later output stays finite and the voice gate opens again', async (_name, value) => {
    const rnnoise = await instantiateRnnoise(wasm);
    const processor = new FrameProcessor(rnnoise.denoise, { preRollMs: 0, hangoverMs: 0 }, rnnoise.reset);
    const quantum = 128;
    run(processor, voice(48000), quantum);
    const broken = voice(quantum * 4, 48000);
    broken[200] = value;
    run(processor, broken, quantum);
    const sentBefore = processor.counters.sent;
    const after = run(processor, voice(48000 * 2, 48000 + quantum * 4), quantum);
    expect(after.every(Number.isFinite)).toBe(true);
    expect(processor.counters.sent - sentBefore).toBeGreaterThan(50); // the gate reopened on the voice that followed
    expect(energy(after)).toBeGreaterThan(0);
    rnnoise.destroy();
  });

  it('a suppressor whose output turns non-finite is reset, the frame leaves silent, and the reset is counted', () => {
    let poisoned = false;
    let resets = 0;
    const processor = new FrameProcessor((frame) => {
      if (poisoned) frame.fill(Number.NaN);
      return poisoned ? Number.NaN : 0.9;
    }, false, () => {
      resets++;
      poisoned = false;
    });
    run(processor, voice(FRAME_SAMPLES * 4), 128);
    poisoned = true;
    const out = run(processor, voice(FRAME_SAMPLES * 4), 128);
    expect(out.every(Number.isFinite)).toBe(true);
    expect(resets).toBe(1);
    expect(processor.counters.resets).toBe(1);
  });
});
