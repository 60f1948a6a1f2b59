import { readFileSync } from 'node:fs';
import { decodeWav } from '../../../src/emulator/wav.js';
import { resample, toMono } from '../../../src/emulator/realtime/pcm.js';

/** A committed speech fixture as 48 kHz mono samples, ready for FakeMicrophone.play(). */
export function speechFixture(name: string): Int16Array {
  const wav = decodeWav(readFileSync(new URL(`../../fixtures/audio/${name}`, import.meta.url)));
  return resample(toMono(wav.samples, wav.channels), wav.sampleRate, 48_000);
}
