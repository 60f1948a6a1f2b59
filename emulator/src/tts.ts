/**
 * `kb-voice-emulator/tts`: the emulator's built-in text-to-speech (Flite, English) for callers'
 * words, e.g. what kb-voice-qa's `call.say(text)` plays into a fake microphone. It is the same
 * synthesizer that speaks the emulator's answers (realtime/tts-flite.ts), run in the same worker
 * pool; this module only adds the WAV encoding and loads no WebRTC code.
 */
import { synthesizeFlite, type FliteVoice } from './realtime/tts-flite.js';
import { encodeWav } from './wav.js';

export { FLITE_VOICES, FliteError, type FliteVoice } from './realtime/tts-flite.js';

/** Longest text {@link speak} accepts, in characters (as long as a typed question). */
export const MAX_SPEAK_CHARS = 4000;

export interface SpeakOptions {
  /** Flite voice (default `kal16`, male, 16 kHz; `slt` is female). */
  voice?: FliteVoice;
  signal?: AbortSignal;
}

/** Speech for one text: mono PCM16 samples, their rate, and the same audio as a WAV file. */
export interface SpokenText {
  samples: Int16Array;
  sampleRate: number;
  wav: Uint8Array;
  durationMs: number;
}

/**
 * Speaks `text` (English) with Flite off the main thread. Rejects with a RangeError for empty or
 * over-long text (more than {@link MAX_SPEAK_CHARS}), and with `FliteError` when synthesis fails.
 */
export async function speak(text: string, options: SpeakOptions = {}): Promise<SpokenText> {
  if (typeof text !== 'string' || text.trim() === '') throw new RangeError('speak(text): the text must contain words');
  if (text.length > MAX_SPEAK_CHARS) throw new RangeError(`speak(text): at most ${MAX_SPEAK_CHARS} characters, got ${text.length}`);
  const pcm = await synthesizeFlite(text, {
    ...(options.voice ? { voice: options.voice } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    samples: pcm.samples,
    sampleRate: pcm.sampleRate,
    wav: encodeWav(pcm.samples, pcm.sampleRate),
    durationMs: Math.round((pcm.samples.length / pcm.sampleRate) * 1000),
  };
}
