import { activeLevelDbfs, resample } from '../realtime/pcm.js';
import { synthesizeFormant } from '../realtime/tts-formant.js';
import { normal, seededRandom, type Random } from './random.js';

/**
 * Generated room noise for the lab: seeded, so a test hears the same cough every run, and made
 * here (no recordings to download). Each generator returns 16 kHz mono PCM16 scaled to the
 * reference level {@link NOISE_REFERENCE_DBFS}; {@link mixAtSnr} and {@link noiseAtSnr} set it
 * relative to speech.
 */

/** Rate of every generated fixture (FakeMicrophone resamples to 48 kHz). */
export const NOISE_SAMPLE_RATE = 16000;
/**
 * The level SNRs refer to when there is no speech to compare with (noise alone over an answer):
 * -26 dBFS RMS, the nominal active speech level of ITU-T P.56 / P.800 test material.
 */
export const NOISE_REFERENCE_DBFS = -26;
/** The longest fixture generated at once (ms): a limit, so a typo does not allocate minutes of audio. */
export const MAX_NOISE_MS = 60_000;

export type NoiseName = 'beeps' | 'tones' | 'cough' | 'keyboard' | 'fan' | 'hum' | 'music' | 'babble' | 'cafe';

/** What each fixture models, for docs and reports. */
export const NOISE_FIXTURES: Readonly<Record<NoiseName, string>> = {
  beeps: "Chromium's fake microphone: a 20 ms 400 Hz square-wave beep every 500 ms",
  tones: '200 ms 1 kHz beeps, two per second (a phone or appliance)',
  cough: 'coughs: bursts of shaped noise, 150-300 ms, about one a second',
  keyboard: 'keyboard clicks: 5-15 ms impulses with a resonance, ~8 per second',
  fan: 'a fan: low-passed noise with a slow wobble (stationary, broadband)',
  hum: 'mains hum: 50 Hz and its harmonics with a little noise',
  music: 'synthesized music: bass, chords and a melody of harmonic notes, with a kick drum',
  babble: 'six talkers of the built-in formant voice at different pitches, overlapping',
  cafe: 'babble plus cup and cutlery clinks',
};
export { activeLevelDbfs };
export const NOISE_NAMES = Object.keys(NOISE_FIXTURES) as NoiseName[];

export interface NoiseOptions {
  /** Length (ms). Default 3000; at most {@link MAX_NOISE_MS}. */
  durationMs?: number;
  /** PRNG seed (default 1): the same seed gives the same samples. */
  seed?: number;
}

/** A noise fixture by name: 16 kHz mono at {@link NOISE_REFERENCE_DBFS}. */
export function generateNoise(name: NoiseName, options: NoiseOptions = {}): Int16Array {
  const durationMs = options.durationMs ?? 3000;
  if (!(durationMs > 0) || durationMs > MAX_NOISE_MS) throw new RangeError(`durationMs must be in (0, ${MAX_NOISE_MS}], got ${durationMs}`);
  const generate = GENERATORS[name];
  if (!generate) throw new RangeError(`unknown noise "${String(name)}"; one of ${NOISE_NAMES.join(', ')}`);
  const n = Math.round((durationMs / 1000) * NOISE_SAMPLE_RATE);
  const out = generate(n, seededRandom(options.seed ?? 1));
  return toPcm(out, NOISE_REFERENCE_DBFS);
}

/** `noise` rescaled so that `speechDbfs - level(noise) = snrDb` (speech level default: the reference). */
export function noiseAtSnr(noise: Int16Array, snrDb: number, speechDbfs = NOISE_REFERENCE_DBFS): Int16Array {
  if (!Number.isFinite(snrDb)) throw new RangeError(`snrDb must be a finite number, got ${snrDb}`);
  const level = activeLevelDbfs(noise);
  if (level === -Infinity) return noise;
  const gain = 10 ** ((speechDbfs - snrDb - level) / 20);
  const out = new Int16Array(noise.length);
  for (let i = 0; i < noise.length; i++) out[i] = clip(noise[i]! * gain);
  return out;
}

/**
 * Speech with noise under it at `snrDb` (relative to the speech's own active level); the noise is
 * looped or cut to the speech's length. Both at the same rate.
 */
export function mixAtSnr(speech: Int16Array, noise: Int16Array, snrDb: number): Int16Array {
  const scaled = noiseAtSnr(noise, snrDb, activeLevelDbfs(speech));
  const out = new Int16Array(speech.length);
  for (let i = 0; i < speech.length; i++) out[i] = clip(speech[i]! + (scaled.length ? scaled[i % scaled.length]! : 0));
  return out;
}

// ---- generators (Float32 at 16 kHz, any scale: toPcm normalizes) ----

type Generator = (n: number, random: Random) => Float32Array;
const RATE = NOISE_SAMPLE_RATE;

const GENERATORS: Record<NoiseName, Generator> = {
  beeps(n) {
    const out = new Float32Array(n);
    const period = RATE / 2;
    const len = RATE * 0.02;
    for (let i = 0; i < n; i++) if (i % period < len) out[i] = Math.sin((2 * Math.PI * 400 * i) / RATE) >= 0 ? 1 : -1;
    return out;
  },
  tones(n) {
    const out = new Float32Array(n);
    const period = RATE / 2;
    const len = RATE * 0.2;
    for (let i = 0; i < n; i++) {
      const t = i % period;
      if (t < len) out[i] = Math.sin((2 * Math.PI * 1000 * i) / RATE) * Math.min(1, t / 80, (len - t) / 80);
    }
    return out;
  },
  cough(n, random) {
    const out = new Float32Array(n);
    for (let at = Math.round(RATE * 0.1); at < n; at += Math.round(RATE * (0.8 + 0.5 * random()))) {
      const len = Math.round(RATE * (0.15 + 0.15 * random()));
      // A cough: an explosive onset then turbulent noise, low-passed (the chest), decaying.
      let lp = 0;
      const a = 0.25 + 0.2 * random();
      for (let i = 0; i < len && at + i < n; i++) {
        lp += a * (normal(random) - lp);
        const env = Math.min(1, i / (RATE * 0.008)) * Math.exp((-4 * i) / len);
        out[at + i]! += lp * env;
      }
    }
    return out;
  },
  keyboard(n, random) {
    const out = new Float32Array(n);
    for (let at = Math.round(RATE * 0.05 * random()); at < n; at += Math.round(RATE * (0.06 + 0.14 * random()))) {
      const len = Math.round(RATE * (0.005 + 0.01 * random()));
      const f = 2500 + 2000 * random();
      for (let i = 0; i < len * 3 && at + i < n; i++) {
        const env = Math.exp((-3 * i) / len);
        out[at + i]! += (0.6 * normal(random) + Math.sin((2 * Math.PI * f * i) / RATE)) * env;
      }
    }
    return out;
  },
  fan(n, random) {
    const out = new Float32Array(n);
    let lp1 = 0;
    let lp2 = 0;
    for (let i = 0; i < n; i++) {
      lp1 += 0.08 * (normal(random) - lp1);
      lp2 += 0.3 * (lp1 - lp2);
      out[i] = lp2 * (1 + 0.1 * Math.sin((2 * Math.PI * 3.1 * i) / RATE));
    }
    return out;
  },
  hum(n, random) {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let x = 0.05 * normal(random);
      for (let h = 1; h <= 6; h++) x += Math.sin((2 * Math.PI * 50 * h * i) / RATE) / h;
      out[i] = x;
    }
    return out;
  },
  music: (n, random) => synthMusic(n, random),
  babble: (n, random) => babble(n, random, 6),
  cafe(n, random) {
    const out = babble(n, random, 6);
    let peak = 0;
    for (const x of out) peak = Math.max(peak, Math.abs(x));
    for (let at = Math.round(RATE * random()); at < n; at += Math.round(RATE * (0.6 + 1.2 * random()))) {
      const f = 2000 + 3000 * random();
      const len = Math.round(RATE * 0.25);
      for (let i = 0; i < len && at + i < n; i++) {
        out[at + i]! += 0.5 * peak * Math.exp((-8 * i) / len) * (Math.sin((2 * Math.PI * f * i) / RATE) + 0.5 * Math.sin((2 * Math.PI * f * 2.76 * i) / RATE));
      }
    }
    return out;
  },
};

const NOTE = (semitone: number) => 110 * 2 ** (semitone / 12);

function synthMusic(n: number, random: Random): Float32Array {
  const out = new Float32Array(n);
  const beat = Math.round(RATE * 0.5); // 120 bpm
  const chords = [[0, 4, 7], [5, 9, 12], [7, 11, 14], [0, 4, 7]];
  const scale = [0, 2, 4, 5, 7, 9, 11, 12];
  const note = (at: number, len: number, f: number, amp: number, harmonics: number) => {
    for (let i = 0; i < len && at + i < n; i++) {
      const env = Math.min(1, i / 200) * Math.exp((-2 * i) / len);
      let x = 0;
      for (let h = 1; h <= harmonics; h++) x += Math.sin((2 * Math.PI * f * h * i) / RATE) / h;
      out[at + i]! += amp * env * x;
    }
  };
  for (let b = 0, at = 0; at < n; b++, at += beat) {
    const chord = chords[Math.floor(b / 4) % chords.length]!;
    if (b % 4 === 0) for (const s of chord) note(at, beat * 4, NOTE(s + 12), 0.25, 4);
    note(at, beat, NOTE(chord[0]! - 12), 0.5, 3); // bass
    const melody = NOTE(24 + scale[Math.floor(random() * scale.length)]!);
    note(at, beat / 2, melody, 0.35, 5);
    note(at + beat / 2, beat / 2, NOTE(24 + scale[Math.floor(random() * scale.length)]!), 0.35, 5);
    // Kick drum: a falling sine thump.
    for (let i = 0; i < RATE * 0.12 && at + i < n; i++) out[at + i]! += 0.8 * Math.exp((-30 * i) / RATE) * Math.sin(2 * Math.PI * (60 + 80 * Math.exp((-40 * i) / RATE)) * (i / RATE));
  }
  return out;
}

const BABBLE_LINES = [
  'Did you see the game last night? It went on for ages.',
  'I think we should order another round before they close the kitchen.',
  'She told me the meeting moved to Thursday afternoon.',
  'Honestly the coffee here is better than the place down the street.',
  'We are going to the coast this summer, maybe for two weeks.',
  'Can you pass the sugar, please? Thanks a lot.',
  'The new project starts next month and nobody knows the plan yet.',
  'My brother finally bought that car he kept talking about.',
];

/** Several formant-voice talkers, each at its own pitch and vocal-tract length, overlapping. */
function babble(n: number, random: Random, talkers: number): Float32Array {
  const out = new Float32Array(n);
  for (let t = 0; t < talkers; t++) {
    // Resampling the 48 kHz voice by a factor shifts pitch and formants together: another speaker.
    const factor = 0.8 + 0.45 * random();
    let at = -Math.round(RATE * 2 * random());
    let line = Math.floor(random() * BABBLE_LINES.length);
    while (at < n) {
      const voice = synthesizeFormant(BABBLE_LINES[line++ % BABBLE_LINES.length]!);
      const pcm = resample(voice.samples, voice.sampleRate, Math.round(RATE * factor));
      for (let i = 0; i < pcm.length; i++) if (at + i >= 0 && at + i < n) out[at + i]! += pcm[i]! / 32768;
      at += pcm.length + Math.round(RATE * 0.3 * random());
    }
  }
  return out;
}

function toPcm(x: Float32Array, dbfs: number): Int16Array {
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  const pcm = new Int16Array(x.length);
  if (peak === 0) return pcm;
  for (let i = 0; i < x.length; i++) pcm[i] = Math.round((x[i]! / peak) * 16000);
  return noiseAtSnr(pcm, 0, dbfs);
}

function clip(x: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(x)));
}
