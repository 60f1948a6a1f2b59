import { seededRandom } from '../lab/random.js';
import type { Pcm } from './pcm.js';

/**
 * The built-in offline voice: a small formant synthesizer in pure TypeScript (no GPL code, no
 * external program). It does not pronounce words; it turns text into a clearly audible, speech-like
 * sequence of syllables (a glottal pulse train through vowel formant resonators, noise bursts for
 * fricatives, gaps for stops and punctuation) with a falling pitch contour per phrase, a rise at the
 * end of questions, and a length proportional to the text. Output is deterministic.
 */

export const FORMANT_SAMPLE_RATE = 48000;

type Vowel = 'a' | 'e' | 'i' | 'o' | 'u';
/** First three formants (Hz) of each vowel (Peterson & Barney averages). */
const FORMANTS: Record<Vowel, [number, number, number]> = {
  a: [730, 1090, 2440],
  e: [530, 1840, 2480],
  i: [300, 2200, 2950],
  o: [570, 840, 2410],
  u: [320, 900, 2240],
};
const VOWELS = 'aeiou';
const FRICATIVES = new Set(['s', 'f', 'h', 'z', 'v', 'c', 'x', 'j']);
const STOPS = new Set(['p', 't', 'k', 'b', 'd', 'g', 'q']);

interface Syllable {
  kind: 'syllable';
  vowel: Vowel;
  onset: 'fricative' | 'stop' | 'sonorant' | 'none';
  ms: number;
  stressed: boolean;
}
interface Pause {
  kind: 'pause';
  ms: number;
  /** End of phrase: the pitch contour restarts after it. */
  phraseEnd: boolean;
  question: boolean;
}
type Unit = Syllable | Pause;

/** Splits text into syllable-like units and pauses. */
export function textToUnits(text: string): Unit[] {
  const units: Unit[] = [];
  const re = /([a-zA-Z\u00c0-\u024f']+)|(\d)|([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])|([.!?。！？]+)|([,;:、，]+)|(\s+)/gu;
  for (const m of text.matchAll(re)) {
    if (m[1]) {
      const word = m[1].toLowerCase();
      const groups = word.match(/[^aeiouy]*[aeiouy]+(?:[^aeiouy]+$)?/g) ?? [word];
      groups.forEach((g, i) => {
        const vowelChar = [...g].find((c) => VOWELS.includes(c)) ?? (g.includes('y') ? 'i' : 'e');
        const first = g[0]!;
        const onset = VOWELS.includes(first) || first === 'y' ? 'none'
          : FRICATIVES.has(first) || g.startsWith('sh') || g.startsWith('th') ? 'fricative'
          : STOPS.has(first) ? 'stop' : 'sonorant';
        units.push({ kind: 'syllable', vowel: vowelChar as Vowel, onset, ms: clamp(g.length * 62, 110, 340), stressed: i === 0 });
      });
      units.push({ kind: 'pause', ms: 35, phraseEnd: false, question: false });
    } else if (m[2] || m[3]) {
      // Digits and CJK characters: one syllable each, vowel picked deterministically from the code point.
      const code = (m[2] ?? m[3])!.codePointAt(0)!;
      units.push({ kind: 'syllable', vowel: VOWELS[code % 5] as Vowel, onset: code % 3 === 0 ? 'stop' : code % 3 === 1 ? 'sonorant' : 'fricative', ms: 150, stressed: code % 4 === 0 });
    } else if (m[4]) {
      units.push({ kind: 'pause', ms: 320, phraseEnd: true, question: /[?？]/.test(m[4]) });
    } else if (m[5]) {
      units.push({ kind: 'pause', ms: 180, phraseEnd: true, question: false });
    }
  }
  return units;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Two-pole resonator (Klatt) with persistent state. */
class Resonator {
  #a = 0; #b = 0; #c = 0; #y1 = 0; #y2 = 0;
  set(freq: number, bw: number, rate: number) {
    const t = 1 / rate;
    this.#c = -Math.exp(-2 * Math.PI * bw * t);
    this.#b = 2 * Math.exp(-Math.PI * bw * t) * Math.cos(2 * Math.PI * freq * t);
    this.#a = 1 - this.#b - this.#c;
  }
  step(x: number): number {
    const y = this.#a * x + this.#b * this.#y1 + this.#c * this.#y2;
    this.#y2 = this.#y1;
    this.#y1 = y;
    return y;
  }
}

/** Synthesizes `text` with the built-in formant voice (48 kHz mono). Empty text gives no samples. */
export function synthesizeFormant(text: string): Pcm {
  const rate = FORMANT_SAMPLE_RATE;
  const units = textToUnits(text);
  // Trailing word gaps are not worth sending.
  while (units.length && units[units.length - 1]!.kind === 'pause') units.pop();
  const total = units.reduce((n, u) => n + Math.round((u.ms * rate) / 1000), 0);
  const out = new Float32Array(total);
  const res = [new Resonator(), new Resonator(), new Resonator()];
  const gains = [1, 0.6, 0.3];
  // The emulator's one PRNG (lab/random.ts), seeded: the same text gives the same samples.
  const random = seededRandom(0x2545f491);
  const noise = () => random() * 2 - 1;

  // Phrase boundaries give each syllable its position in the phrase for the pitch contour.
  const phraseOf: { index: number; count: number; question: boolean }[] = [];
  for (let i = 0; i < units.length; ) {
    let j = i;
    let count = 0;
    while (j < units.length && !(units[j]!.kind === 'pause' && (units[j] as Pause).phraseEnd)) {
      if (units[j]!.kind === 'syllable') count++;
      j++;
    }
    const end = units[j];
    const question = !!end && end.kind === 'pause' && end.question || (j >= units.length && /[?？]\s*$/.test(text));
    let index = 0;
    for (let k = i; k <= j && k < units.length; k++) phraseOf[k] = { index: units[k]!.kind === 'syllable' ? index++ : index, count, question };
    i = j + 1;
  }

  let pos = 0;
  let phase = 0;
  let glottal = 0;
  units.forEach((u, ui) => {
    const n = Math.round((u.ms * rate) / 1000);
    if (u.kind === 'pause') {
      pos += n;
      return;
    }
    const ph = phraseOf[ui]!;
    const progress = ph.count > 1 ? ph.index / (ph.count - 1) : 0;
    // Declining contour 190 → 135 Hz, a rise on the last syllables of a question, a bump on stress.
    let f0 = 190 - 55 * progress + (u.stressed ? 18 : 0);
    if (ph.question && progress > 0.7) f0 += 120 * (progress - 0.7);
    const [f1, f2, f3] = FORMANTS[u.vowel];
    res[0]!.set(f1, 90, rate);
    res[1]!.set(f2, 110, rate);
    res[2]!.set(f3, 170, rate);
    const onsetN = u.onset === 'none' ? 0 : Math.round((u.onset === 'sonorant' ? 0.04 : 0.055) * rate);
    const attack = Math.round(0.015 * rate);
    const release = Math.round(0.04 * rate);
    for (let i = 0; i < n; i++) {
      const inOnset = i < onsetN;
      let x: number;
      if (inOnset && u.onset === 'fricative') {
        x = noise() * 0.35;
      } else if (inOnset && u.onset === 'stop') {
        // Closure (silence) followed by a short burst.
        x = i > onsetN - 0.012 * rate ? noise() * 0.5 : 0;
      } else {
        const f = f0 * (1 - 0.08 * (i / n)); // slight fall inside the syllable
        phase += f / rate;
        if (phase >= 1) phase -= 1;
        // Glottal flow derivative approximated by a one-pole smoothed sawtooth.
        glottal += 0.35 * ((1 - 2 * phase) - glottal);
        x = glottal * (inOnset ? 0.35 : 1);
      }
      let y = 0;
      for (let k = 0; k < 3; k++) y += gains[k]! * res[k]!.step(x);
      if (inOnset && u.onset === 'fricative') y = x * 0.6 + y * 0.2; // fricatives are mostly unfiltered hiss
      const env = Math.min(1, i / attack, (n - i) / release);
      out[pos + i] = y * env;
    }
    pos += n;
  });

  let peak = 0;
  for (let i = 0; i < out.length; i++) peak = Math.max(peak, Math.abs(out[i]!));
  const scale = peak > 0 ? (0.6 * 32767) / peak : 0;
  const samples = new Int16Array(out.length);
  for (let i = 0; i < out.length; i++) samples[i] = Math.round(out[i]! * scale);
  return { samples, sampleRate: rate };
}
