import { readFile } from 'node:fs/promises';
import type { Utterance } from './types.js';

/** What one `call.say()` plays and, on the emulator, scripts. */
export interface PreparedUtterance {
  /** A WAV file's bytes. */
  wav: Uint8Array;
  /** The words the emulator should recognize for it; undefined leaves recognition to the service. */
  transcript: string | undefined;
  /** What to show in reports and messages. */
  label: string;
}

/** Longest text `say()` speaks (kb-voice-emulator/tts's limit too). */
export const MAX_SAY_CHARS = 4000;

type Tts = typeof import('kb-voice-emulator/tts');
let tts: Promise<Tts> | undefined;

/** The built-in TTS: kb-voice-emulator's Flite (the one that speaks the emulator's answers). */
function loadTts(): Promise<Tts> {
  tts ??= import('kb-voice-emulator/tts').catch((cause: unknown) => {
    tts = undefined;
    throw new Error(
      'kb-voice-qa: call.say(text) speaks with the TTS of kb-voice-emulator, which is not installed: ' +
        'npm install -D kb-voice-emulator (or say a recording: call.say({ wav: "question.wav" }))',
      { cause },
    );
  });
  return tts;
}

/** Turns `say()`'s argument into audio: text through Flite (English), a WAV file as it is. */
export async function prepareUtterance(utterance: Utterance): Promise<PreparedUtterance> {
  if (typeof utterance === 'string') {
    if (utterance.trim() === '') throw new TypeError('kb-voice-qa: call.say(text) needs words');
    if (utterance.length > MAX_SAY_CHARS) throw new RangeError(`kb-voice-qa: call.say(text) takes at most ${MAX_SAY_CHARS} characters, got ${utterance.length}`);
    const spoken = await (await loadTts()).speak(utterance);
    return { wav: spoken.wav, transcript: utterance, label: utterance };
  }
  if (!utterance || typeof utterance.wav !== 'string') throw new TypeError('kb-voice-qa: call.say() takes text or { wav: "file.wav", transcript? }');
  let wav: Uint8Array;
  try {
    wav = await readFile(utterance.wav);
  } catch (cause) {
    throw new Error(`kb-voice-qa: cannot read the WAV file ${utterance.wav}`, { cause });
  }
  if (wav.length < 12 || String.fromCharCode(...wav.subarray(0, 4)) !== 'RIFF' || String.fromCharCode(...wav.subarray(8, 12)) !== 'WAVE') {
    throw new Error(`kb-voice-qa: ${utterance.wav} is not a WAV file (no RIFF/WAVE header)`);
  }
  return { wav, transcript: utterance.transcript, label: utterance.transcript ?? `[${utterance.wav}]` };
}
