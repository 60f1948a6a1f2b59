import { describe, expect, it } from 'vitest';
import { MAX_SPEAK_CHARS, speak } from '../../emulator/src/tts.js';
import { decodeWav } from '../../emulator/src/wav.js';

// kb-voice-emulator/tts: the emulator's Flite, shared with kb-voice-qa's call.say(text).
describe('speak()', () => {
  it('speaks English text as PCM16 and the same audio as a WAV file', async () => {
    const spoken = await speak('How long is the warranty?');
    expect(spoken.sampleRate).toBe(16000);
    expect(spoken.durationMs).toBeGreaterThan(500);
    expect(spoken.durationMs).toBeLessThan(5000);
    const wav = decodeWav(spoken.wav);
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 1 });
    expect(wav.samples).toEqual(spoken.samples);
    expect(spoken.samples.some((s) => Math.abs(s) > 1000)).toBe(true);
  });

  it('rejects empty and over-long text with a clear error', async () => {
    await expect(speak('  ')).rejects.toThrow(/must contain words/);
    await expect(speak('a'.repeat(MAX_SPEAK_CHARS + 1))).rejects.toThrow(`at most ${MAX_SPEAK_CHARS} characters`);
  });
});
