import { describe, expect, it } from 'vitest';
import { VoiceGate, voiceGateSettings } from '../../../src/client/noise/voice-gate.js';
import { FRAME_SAMPLES, FrameProcessor } from '../../../src/noise/frame-processor.js';
import { seededRandom } from '../../../emulator/src/lab/random.js';

// The client voice gate (issue 35) on fake frames: what it sends is exactly the voice with its
// pre-roll and hangover, nothing of a click or of noise, and through the frame processor no sample
// of a word is lost or attenuated.

/** Pushes per-frame probabilities; returns, per pushed frame, whether the frame leaving was sent. */
function run(gate: VoiceGate, probabilities: number[]): boolean[] {
  return probabilities.map((p) => gate.push(p).open);
}

/** Which input frames were sent (output index i carries input frame i - delay). */
function sentFrames(gate: VoiceGate, probabilities: number[]): number[] {
  const flush = Array<number>(gate.delayFrames).fill(0);
  return run(gate, [...probabilities, ...flush])
    .map((open, i) => (open ? i - gate.delayFrames : -1))
    .filter((frame) => frame >= 0);
}

describe('VoiceGate', () => {
  it('sends nothing while there is no voice', () => {
    const gate = new VoiceGate();
    expect(sentFrames(gate, Array<number>(500).fill(0.1))).toEqual([]);
  });

  it('sends the voice with its pre-roll before and its hangover after', () => {
    const gate = new VoiceGate({ preRollMs: 200, hangoverMs: 400, minVoiceMs: 30 });
    // 1 s of silence, 0.5 s of voice (frames 100-149), then silence.
    const p = [...Array<number>(100).fill(0), ...Array<number>(50).fill(0.9), ...Array<number>(150).fill(0)];
    const sent = sentFrames(gate, p);
    // Voice is confirmed at frame 102 (3 frames): the 20 frames of pre-roll before it go too.
    expect(sent[0]).toBe(102 - 20);
    // Last voiced frame 149, then 40 frames of hangover.
    expect(sent.at(-1)).toBe(149 + 40);
    expect(sent).toHaveLength(149 + 40 - (102 - 20) + 1);
    for (let f = 100; f < 150; f++) expect(sent).toContain(f);
  });

  it('a click (one voiced-looking frame) never opens it; voice must last minVoiceMs', () => {
    const gate = new VoiceGate({ minVoiceMs: 30 });
    const clicks = Array.from({ length: 300 }, (_, i) => (i % 37 === 0 || i % 37 === 1 ? 0.95 : 0));
    expect(sentFrames(gate, clicks)).toEqual([]);
  });

  it('keeps a word open through a dip below the open threshold (hysteresis)', () => {
    const gate = new VoiceGate({ openThreshold: 0.6, closeThreshold: 0.3, hangoverMs: 0, preRollMs: 0, minVoiceMs: 30 });
    const p = [0, 0.9, 0.9, 0.9, 0.4, 0.4, 0.9, 0.1, 0];
    expect(run(gate, p)).toEqual([false, false, false, true, true, true, true, false, false]);
  });

  it('checks its settings', () => {
    expect(() => voiceGateSettings({ preRollMs: -1 })).toThrow(RangeError);
    expect(() => voiceGateSettings({ hangoverMs: 5000 })).toThrow(/hangoverMs/);
    expect(() => voiceGateSettings({ openThreshold: 0.2, closeThreshold: 0.5 })).toThrow(/closeThreshold/);
    expect(voiceGateSettings({ preRollMs: undefined })).toMatchObject({ preRollMs: 200, hangoverMs: 400 });
  });
});

/** A stand-in for rnnoise: voice where the frame is loud, noise elsewhere; the frame is left as is. */
const loudIsVoice = (frame: Float32Array) => {
  let energy = 0;
  for (const s of frame) energy += s * s;
  return Math.sqrt(energy / frame.length) > 0.05 ? 0.9 : 0.05;
};

/** Runs samples through in render quanta of 128, as an AudioWorklet does. */
function process(processor: FrameProcessor, input: Float32Array): Float32Array {
  const output = new Float32Array(input.length);
  for (let i = 0; i < input.length; i += 128) processor.process(input.subarray(i, i + 128), output.subarray(i, i + 128));
  return output;
}

describe('FrameProcessor (rnnoise + gate, without Web Audio)', () => {
  it('no sample of a word is clipped or attenuated; the noise around it is silenced', () => {
    const rate = 48000;
    const seconds = 3;
    const input = new Float32Array(rate * seconds);
    // Low noise throughout, a "word" from 1.0 s to 1.6 s whose first 40 ms are soft (an onset rnnoise scores low).
    for (let i = 0; i < input.length; i++) input[i] = 0.01 * Math.sin(i * 1.7);
    const start = rate * 1.0;
    const end = rate * 1.6;
    // Voice-like: 20 harmonics of 140 Hz (a pure sine would be a tone, which the gate refuses).
    const voiced = (i: number) => Array.from({ length: 20 }, (_, h) => Math.sin((2 * Math.PI * 140 * (h + 1) * i) / rate) / (h + 1)).reduce((a, b) => a + b, 0);
    for (let i = start; i < end; i++) input[i] = (i < start + rate * 0.04 ? 0.02 : 0.2) * voiced(i);
    const processor = new FrameProcessor(loudIsVoice, { preRollMs: 200, hangoverMs: 400 });
    const output = process(processor, input);
    const lag = processor.latencySamples;
    expect(lag).toBe(FRAME_SAMPLES * 21);
    let clipped = 0;
    for (let i = start; i < end; i++) if (Math.abs(output[i + lag]! - input[i]!) > 1e-6) clipped++;
    expect(clipped).toBe(0);
    // Half a second before the word (beyond the pre-roll) and after its hangover: silence.
    const silent = (from: number, to: number) => output.subarray(from + lag, to + lag).every((s) => s === 0);
    expect(silent(rate * 0.2, rate * 0.7)).toBe(true);
    expect(silent(rate * 2.1, rate * 2.5)).toBe(true);
    expect(processor.counters).toMatchObject({ frames: seconds * 100 });
    expect(processor.counters.sent).toBeLessThan(processor.counters.frames / 2);
  });

  it('without the gate every cleaned frame is sent, one frame later', () => {
    const processor = new FrameProcessor((frame) => {
      frame.fill(0.5);
      return 0;
    }, false);
    const output = process(processor, new Float32Array(FRAME_SAMPLES * 4).fill(0.1));
    expect(processor.latencySamples).toBe(FRAME_SAMPLES);
    expect(output.subarray(0, FRAME_SAMPLES).every((s) => s === 0)).toBe(true);
    expect(output.subarray(FRAME_SAMPLES).every((s) => s === 0.5)).toBe(true);
  });
});

describe('tonality (tones are not voice)', () => {
  const rate = 48000;
  const frameOf = (f: (t: number) => number) => Float32Array.from({ length: FRAME_SAMPLES }, (_, i) => f(i / rate));
  it('a steady beep is a tone from its 80th ms; speech-like sound, a sweep and noise never are', async () => {
    const { ToneDetector, TONAL_FRAMES } = await import('../../../src/noise/tonality.js');
    const frames = (f: (t: number) => number, n: number) => Array.from({ length: n }, (_, k) => Float32Array.from({ length: FRAME_SAMPLES }, (_, i) => f((k * FRAME_SAMPLES + i) / rate)));
    const verdicts = (list: Float32Array[]) => {
      const tones = new ToneDetector();
      return list.map((frame) => tones.push(frame));
    };
    const beep = verdicts(frames((t) => 0.3 * Math.sin(2 * Math.PI * 1000 * t), 20));
    expect(beep.indexOf(true)).toBe(TONAL_FRAMES - 1);
    expect(beep.slice(TONAL_FRAMES - 1).every(Boolean)).toBe(true);
    // Voice-like: harmonics of a gliding pitch with a formant near 700 Hz.
    const pitch = (t: number) => 120 + 200 * t;
    expect(verdicts(frames((t) => Array.from({ length: 25 }, (_, h) => Math.sin(2 * Math.PI * pitch(t) * (h + 1) * t) / (1 + Math.abs(h + 1 - 5))).reduce((a, b) => a + b, 0) * 0.05, 40)).some(Boolean)).toBe(false);
    const random = seededRandom(1);
    expect(verdicts(frames(() => (random() - 0.5) * 0.2, 40)).some(Boolean)).toBe(false);
  });

  it('through the frame processor a loud beep never opens the gate', () => {
    const processor = new FrameProcessor(loudIsVoice);
    const input = new Float32Array(rate * 2);
    for (let i = 0; i < input.length; i++) input[i] = (i / rate) % 1 < 0.3 ? 0.4 * Math.sin((2 * Math.PI * 1000 * i) / rate) : 0;
    const output = process(processor, input);
    expect(processor.counters.sent).toBe(0);
    expect(output.every((s) => s === 0)).toBe(true);
  });
});

describe('kb-voice/noise processMicrophone', () => {
  it('refuses gate settings out of their limits before it touches Web Audio', async () => {
    const { processMicrophone } = await import('../../../src/noise/index.js');
    await expect(processMicrophone({} as MediaStream, { gate: { preRollMs: 5000 } })).rejects.toThrow(/preRollMs must be between 0 and 1000/);
  });
});
