import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { activeLevelDbfs, generateNoise, NOISE_REFERENCE_DBFS } from 'kb-voice-emulator/lab';
import { mixUnder, pcmBase64, prepareNoise, type Decode16k } from '../../qa/src/noise.js';

// What call.noise() and say(…, { noise }) send to the page, with the browser's decoder replaced by
// a fake that answers fixed samples (the real one is exercised by qa/test/noise.spec.ts).
const dir = mkdtempSync(path.join(os.tmpdir(), 'kb-voice-qa-noise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const wavFile = path.join(dir, 'noise.wav');
writeFileSync(wavFile, Buffer.from('RIFF....WAVEfmt '));
const samplesOf = (clip: { pcm: string }) => {
  const bytes = Buffer.from(clip.pcm, 'base64');
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};
const fixed = (samples: Int16Array): Decode16k => async () => samples;
const noDecoder: Decode16k = async () => {
  throw new Error('not decoded');
};

describe('kb-voice-qa: noise for the fake microphone', () => {
  it('a named noise is the lab fixture, durationMs long, at snrDb under the nominal speech level', async () => {
    const clip = await prepareNoise('cough', { durationMs: 1000, snrDb: 6 }, noDecoder);
    expect(clip).toMatchObject({ rate: 16000 });
    const samples = samplesOf(clip as { pcm: string });
    expect(samples.length).toBe(16000);
    expect(activeLevelDbfs(samples)).toBeCloseTo(NOISE_REFERENCE_DBFS - 6, 0);
    // Seeded: the same seed, the same sound; the default is 10 dB under speech, 2 s long.
    const again = samplesOf((await prepareNoise('cough', { durationMs: 1000, snrDb: 6 }, noDecoder)) as { pcm: string });
    expect(again).toEqual(samples);
    const byDefault = samplesOf((await prepareNoise('fan', {}, noDecoder)) as { pcm: string });
    expect(byDefault.length).toBe(32000);
    expect(activeLevelDbfs(byDefault)).toBeCloseTo(NOISE_REFERENCE_DBFS - 10, 0);
  });

  it('a file plays as recorded (no lab needed), or scaled to snrDb through the browser decoder', async () => {
    expect(await prepareNoise({ wav: wavFile }, {}, noDecoder)).toEqual({ file: Buffer.from('RIFF....WAVEfmt ').toString('base64') });
    const loud = generateNoise('hum', { durationMs: 500 });
    const scaled = samplesOf((await prepareNoise({ wav: wavFile }, { snrDb: 20 }, fixed(loud))) as { pcm: string });
    expect(activeLevelDbfs(scaled)).toBeCloseTo(NOISE_REFERENCE_DBFS - 20, 0);
  });

  it('bad arguments are clear errors', async () => {
    await expect(prepareNoise('vacuum', {}, noDecoder)).rejects.toThrow(/unknown noise "vacuum"; one of beeps, tones, cough/);
    await expect(prepareNoise('fan', { durationMs: 120_000 }, noDecoder)).rejects.toThrow(/durationMs must be in \(0, 60000\]/);
    await expect(prepareNoise('fan', { snrDb: Number.POSITIVE_INFINITY }, noDecoder)).rejects.toThrow(/snrDb is a number of dB/);
    await expect(prepareNoise({ wav: wavFile }, { durationMs: 500 }, noDecoder)).rejects.toThrow(/durationMs and seed apply to a named noise/);
    await expect(prepareNoise({ wav: path.join(dir, 'missing.wav') }, {}, noDecoder)).rejects.toThrow(/cannot read the audio file .*missing\.wav/);
    await expect(prepareNoise(42 as unknown as string, {}, noDecoder)).rejects.toThrow(/takes a noise name \(e\.g\. 'cough'\) or \{ wav/);
  });

  it('say(…, { noise, snrDb }) mixes the noise under the words, as long as the words, snrDb under their level', async () => {
    const words = generateNoise('babble', { durationMs: 1500 }); // stands for speech: any signal works
    const mixed = samplesOf((await mixUnder(new Uint8Array(4), { noise: 'fan', snrDb: 40 }, fixed(words))) as { pcm: string });
    expect(mixed.length).toBe(words.length);
    // 40 dB under: the mix is the words, give or take the noise.
    expect(activeLevelDbfs(mixed)).toBeCloseTo(activeLevelDbfs(words), 0);
    const noisy = samplesOf((await mixUnder(new Uint8Array(4), { noise: 'fan', snrDb: 0 }, fixed(words))) as { pcm: string });
    expect(activeLevelDbfs(noisy)).toBeGreaterThan(activeLevelDbfs(words) + 2);
  });

  it('PCM goes to the page as base64 of its bytes', () => {
    expect(Buffer.from(pcmBase64(new Int16Array([1, -1])), 'base64')).toEqual(Buffer.from([1, 0, 0xff, 0xff]));
  });
});
