import { describe, expect, it } from 'vitest';
import { speak } from '../../emulator/src/tts.js';
import { speakSentences, trimLeadIn } from '../../emulator/src/realtime/speech.js';

/** Where the first 10 ms window at or above `dbfs` starts (ms), or null. */
function firstLoudMs(samples: Int16Array, rate: number, dbfs = -40): number | null {
  const win = rate / 100;
  for (let start = 0; start + win <= samples.length; start += win) {
    let energy = 0;
    for (let i = start; i < start + win; i++) energy += (samples[i]! / 32768) ** 2;
    if (10 * Math.log10(energy / win) >= dbfs) return (start / rate) * 1000;
  }
  return null;
}

// Measured in samples, so the machine's load cannot change it: the emulator's first answer audio
// is its first word, not Flite's lead-in pause (220–280 ms below −45 dBFS before every utterance).
describe("the answer's lead-in", () => {
  it('Flite puts a pause of 200+ ms before the first word; the first sentence spoken starts within 20 ms of it', async () => {
    const raw = await speak('I can help with that. The library opens at nine.');
    expect(firstLoudMs(raw.samples, raw.sampleRate)).toBeGreaterThanOrEqual(200);
    const synthesize = async () => ({ samples: raw.samples, sampleRate: raw.sampleRate });
    const sentences = [];
    for await (const s of speakSentences(synthesize, 'One. Two.', 'en', 48000, new AbortController().signal)) sentences.push(s);
    expect(firstLoudMs(sentences[0]!.samples, 48000)).toBeLessThanOrEqual(20);
    // later sentences keep their pause: it is the gap between sentences
    expect(firstLoudMs(sentences[1]!.samples, 48000)).toBeGreaterThanOrEqual(200);
  });

  it('keeps a clip without a loud start in its first 500 ms whole, and one that starts loud as it is', () => {
    const quiet = new Int16Array(16000).fill(10);
    expect(trimLeadIn(quiet, 16000)).toBe(quiet);
    const loud = new Int16Array(1600).fill(8000);
    expect(trimLeadIn(loud, 16000)).toBe(loud);
    const late = new Int16Array(16000);
    late.fill(8000, 4000); // first word at 250 ms
    const trimmed = trimLeadIn(late, 16000);
    expect(trimmed.length).toBe(16000 - 4000 + 320); // 20 ms kept before it
  });
});
