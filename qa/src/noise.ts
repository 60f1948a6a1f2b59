import { readFile } from 'node:fs/promises';
import type { CallNoiseOptions, NoiseSource, SayOptions } from './types.js';

/**
 * A clip for the page's fake microphone: an audio file (base64) the browser decodes, or mono
 * PCM16 (base64) at `rate`.
 */
export type PageClip = { file: string } | { pcm: string; rate: number };

/** The browser's decoder: an audio file as mono PCM16 at 16 kHz (the lab's rate). */
export type Decode16k = (file: Uint8Array) => Promise<Int16Array>;

type Lab = typeof import('kb-voice-emulator/lab');
let lab: Promise<Lab> | undefined;

/** kb-voice-emulator/lab: the one place noise is generated and levels are measured. */
function loadLab(what: string): Promise<Lab> {
  lab ??= import('kb-voice-emulator/lab').catch((cause: unknown) => {
    lab = undefined;
    throw new Error(
      `kb-voice-qa: ${what} uses the noise of kb-voice-emulator/lab, which is not installed: ` +
        'npm install -D kb-voice-emulator (or play a recording as it is: call.noise({ wav: "noise.wav" }))',
      { cause },
    );
  });
  return lab;
}

/** PCM16 samples as base64 (host byte order: the page runs on the same machine). */
export function pcmBase64(samples: Int16Array): string {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
}

function checkSnr(snrDb: unknown, what: string): void {
  if (snrDb !== undefined && (typeof snrDb !== 'number' || !Number.isFinite(snrDb))) {
    throw new TypeError(`kb-voice-qa: ${what}: snrDb is a number of dB, got ${JSON.stringify(snrDb)}`);
  }
}

async function readAudio(path: string, what: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (cause) {
    throw new Error(`kb-voice-qa: ${what}: cannot read the audio file ${path}`, { cause });
  }
}

function checkSource(source: unknown, what: string): asserts source is NoiseSource {
  const ok = typeof source === 'string' ? source !== '' : !!source && typeof (source as { wav?: unknown }).wav === 'string';
  if (!ok) throw new TypeError(`kb-voice-qa: ${what} takes a noise name (e.g. 'cough') or { wav: "noise.wav" }`);
}

/** Named noise from the lab (16 kHz), with the lab's checks of name, length and seed. */
async function named(name: string, options: { durationMs: number; seed?: number }, what: string) {
  const { generateNoise, NOISE_NAMES, NOISE_SAMPLE_RATE } = await loadLab(what);
  if (!(NOISE_NAMES as readonly string[]).includes(name)) {
    throw new RangeError(`kb-voice-qa: ${what}: unknown noise "${name}"; one of ${NOISE_NAMES.join(', ')} (or { wav: "noise.wav" })`);
  }
  const samples = generateNoise(name as (typeof NOISE_NAMES)[number], { durationMs: options.durationMs, seed: options.seed ?? 1 });
  return { samples, rate: NOISE_SAMPLE_RATE };
}

/** What `call.noise(source, options)` plays. */
export async function prepareNoise(source: NoiseSource, options: CallNoiseOptions, decode: Decode16k): Promise<PageClip> {
  const what = 'call.noise()';
  checkSource(source, what);
  checkSnr(options.snrDb, what);
  if (typeof source === 'string') {
    const { samples, rate } = await named(source, { durationMs: options.durationMs ?? 2000, ...(options.seed === undefined ? {} : { seed: options.seed }) }, `call.noise('${source}')`);
    const { noiseAtSnr } = await loadLab(what);
    return { pcm: pcmBase64(noiseAtSnr(samples, options.snrDb ?? 10)), rate };
  }
  if (options.durationMs !== undefined || options.seed !== undefined) {
    throw new TypeError('kb-voice-qa: call.noise({ wav }): durationMs and seed apply to a named noise; a file plays whole');
  }
  const file = await readAudio(source.wav, what);
  // As recorded: needs nothing but the browser. A level needs the lab's measure.
  if (options.snrDb === undefined) return { file: Buffer.from(file).toString('base64') };
  const { noiseAtSnr, NOISE_SAMPLE_RATE } = await loadLab('call.noise({ wav }, { snrDb })');
  return { pcm: pcmBase64(noiseAtSnr(await decode(file), options.snrDb)), rate: NOISE_SAMPLE_RATE };
}

/** `speech` (an audio file) with `options.noise` under it at `options.snrDb` (default 10 dB), as 16 kHz PCM. */
export async function mixUnder(speech: Uint8Array, options: SayOptions, decode: Decode16k): Promise<PageClip> {
  const what = 'call.say(…, { noise })';
  checkSource(options.noise, what);
  checkSnr(options.snrDb, what);
  const { mixAtSnr, NOISE_SAMPLE_RATE, MAX_NOISE_MS } = await loadLab(what);
  const words = await decode(speech);
  // Longer words loop the noise (mixAtSnr does).
  const lengthMs = Math.min(MAX_NOISE_MS, Math.max(1, Math.round((words.length / NOISE_SAMPLE_RATE) * 1000)));
  const noise = typeof options.noise === 'string'
    ? (await named(options.noise, { durationMs: lengthMs, ...(options.seed === undefined ? {} : { seed: options.seed }) }, what)).samples
    : await decode(await readAudio(options.noise.wav, what));
  return { pcm: pcmBase64(mixAtSnr(words, noise, options.snrDb ?? 10)), rate: NOISE_SAMPLE_RATE };
}
