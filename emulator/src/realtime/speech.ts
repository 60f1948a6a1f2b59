import type { SynthesizeInput } from './brain.js';
import { resample, type Pcm } from './pcm.js';

/**
 * Sentence-by-sentence speech of an answer: the first sentence is synthesized alone, so a long
 * answer's first audio is not held back by its last sentence; each next sentence is synthesized
 * while the previous one plays (one sentence ahead, so one turn never floods a shared synthesis
 * pool). Used by the v1 turn and by any other realtime path that speaks an answer.
 */

/**
 * Splits `text` into sentences whose concatenation is exactly `text` (each keeps its trailing
 * whitespace): after `.`, `!`, `?` followed by whitespace (so "2.5 years" stays whole), after
 * Japanese full stops, and at line breaks.
 */
export function speechSentences(text: string): string[] {
  const parts = text.match(/[^]*?(?:[.!?]+(?:\s+|$)|[。！？]+\s*|\n+|$)/gu) ?? [];
  return parts.filter((p) => p !== '');
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
 * Yields the sentences of `text` with their speech, in order, converted to `sampleRate`. A sentence
 * with nothing to pronounce (punctuation only) yields no samples. Stops early once `signal` aborts.
 */
export async function* speakSentences(
  synthesize: Synthesize,
  text: string,
  language: string,
  sampleRate: number,
  signal: AbortSignal,
): AsyncGenerator<SpokenSentence> {
  const sentences = speechSentences(text);
  const start = (i: number): Promise<SpokenSentence> => {
    const sentence = sentences[i]!;
    const began = performance.now();
    if (!/[\p{L}\p{N}]/u.test(sentence)) return Promise.resolve({ text: sentence, samples: new Int16Array(0), synthesisMs: 0 });
    const pending = synthesize({ text: sentence.trim(), language, signal }).then((pcm) => ({
      text: sentence,
      samples: resample(pcm.samples, pcm.sampleRate, sampleRate),
      synthesisMs: performance.now() - began,
    }));
    pending.catch(() => {}); // awaited below; an abandoned one must not be reported as unhandled
    return pending;
  };
  let next = sentences.length ? start(0) : undefined;
  for (let i = 0; next; i++) {
    const current = await next;
    next = i + 1 < sentences.length && !signal.aborted ? start(i + 1) : undefined;
    yield current;
    if (signal.aborted) return;
  }
}
