import type { SynthesizeInput } from './brain.js';
import { resample, type Pcm } from './pcm.js';

/**
 * Sentence-by-sentence speech of an answer: the first sentence is synthesized alone, so a long
 * answer's first audio is not held back by its last sentence; each next sentence is synthesized
 * only when the consumer asks for it — the v1 turn asks once less than {@link SYNTHESIS_LEAD_MS}
 * of audio is left to play, so one turn never floods a shared synthesis pool and an answer cut
 * short (barge-in) never pays for sentences nobody hears. Used by the v1 turn and by any other
 * realtime path that speaks an answer.
 */

/**
 * How much queued audio is left when the next sentence's synthesis starts (ms). Flite needs ~50 ms
 * per sentence on an idle core and a few hundred ms on a saturated 2-core machine; 1.5 s leaves
 * room for that without synthesizing far ahead.
 */
export const SYNTHESIS_LEAD_MS = 1500;

/**
 * Splits `text` into sentences whose concatenation is exactly `text` (each keeps its trailing
 * whitespace): after `.`, `!`, `?` followed by whitespace (so "2.5 years" stays whole), after
 * Japanese full stops, and at line breaks.
 */
export function speechSentences(text: string): string[] {
  const parts = text.match(/[^]*?(?:[.!?]+(?:\s+|$)|[。！？]+\s*|\n+|$)/gu) ?? [];
  return parts.filter((p) => p !== '');
}

/** Level (dBFS, RMS over 10 ms) where speech counts as begun when trimming an answer's lead-in. */
const LEAD_IN_DBFS = -40;
/** Audio kept before that point (the onset's ramp). */
const LEAD_IN_KEEP_MS = 20;
/** Only this much of a clip's start is looked at: a quiet first word is not cut. */
const LEAD_IN_MAX_MS = 500;

/**
 * Drops the near-silence a synthesizer puts before the first word (Flite begins every utterance
 * with a pause segment: 220–280 ms below −45 dBFS): the caller would hear the answer that much
 * after the service counted it as started. Keeps {@link LEAD_IN_KEEP_MS} before the first 10 ms
 * at or above {@link LEAD_IN_DBFS}; a clip without such a window in its first
 * {@link LEAD_IN_MAX_MS} is returned whole.
 */
export function trimLeadIn(samples: Int16Array, sampleRate: number): Int16Array {
  const win = Math.max(1, Math.round(sampleRate / 100));
  const limit = Math.min(samples.length, Math.round((sampleRate * LEAD_IN_MAX_MS) / 1000));
  const threshold = 32768 ** 2 * 10 ** (LEAD_IN_DBFS / 10) * win;
  for (let start = 0; start + win <= limit; start += win) {
    let energy = 0;
    for (let i = start; i < start + win; i++) energy += samples[i]! * samples[i]!;
    if (energy < threshold) continue;
    const from = Math.max(0, start - Math.round((sampleRate * LEAD_IN_KEEP_MS) / 1000));
    return from === 0 ? samples : samples.subarray(from);
  }
  return samples;
}

/** One spoken sentence: its text (as in the answer) and its audio at the requested rate. */
export interface SpokenSentence {
  text: string;
  samples: Int16Array;
  /** Time the synthesizer took (ms), from the call to the audio being ready. */
  synthesisMs: number;
}

export type Synthesize = (input: SynthesizeInput) => Promise<Pcm>;

/**
 * Yields the sentences of `text` with their speech, in order, converted to `sampleRate`; each
 * sentence is synthesized when it is asked for. A sentence with nothing to pronounce (punctuation
 * only) yields no samples. Stops early once `signal` aborts.
 */
export async function* speakSentences(
  synthesize: Synthesize,
  text: string,
  language: string,
  sampleRate: number,
  signal: AbortSignal,
): AsyncGenerator<SpokenSentence> {
  let urgent = true;
  for (const sentence of speechSentences(text)) {
    if (signal.aborted) return;
    if (!/[\p{L}\p{N}]/u.test(sentence)) {
      yield { text: sentence, samples: new Int16Array(0), synthesisMs: 0 };
      continue;
    }
    const began = performance.now();
    const pcm = await synthesize({ text: sentence.trim(), language, signal, urgent });
    // The answer's first audio is its first word: the service's first response is counted from it.
    const samples = urgent ? trimLeadIn(pcm.samples, pcm.sampleRate) : pcm.samples;
    urgent = false;
    yield { text: sentence, samples: resample(samples, pcm.sampleRate, sampleRate), synthesisMs: performance.now() - began };
  }
}
