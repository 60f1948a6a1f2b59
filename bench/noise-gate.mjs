#!/usr/bin/env node
// Benchmark: rnnoise and the client voice gate (issue 35), with the built kb-voice/noise in Node:
//   1. CPU per call: the worklet's processing (FrameProcessor: framing, tone check, rnnoise's
//      WebAssembly, gate, delay line) per second of audio, as a share of one core (target <= 5%);
//      also per 10 ms frame.
//   2. Bytes an enabled call downloads: the kb-voice/noise chunk (esbuild, minified), the worklet and
//      the WebAssembly build (SIMD), raw and gzipped; an app that never enables rnnoise downloads 0.
//   3. Words clipped by the gate on the TTS fixtures (test/fixtures/audio, target 0): the same audio
//      through rnnoise with and without the gate; a "word" (a run of loud frames) is clipped when any of
//      its frames left the gate weaker than half of what rnnoise alone sent.
// Run alone: `node bench/noise-gate.mjs` (BENCH_NOISE_SECONDS sets the CPU run's audio length, default 60).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { distDir, ensureBuilt, fmtPct, root, runBenchmark } from './lib/common.mjs';
import { loadLab } from './lib/kb.mjs';

const SECONDS = Number(process.env.BENCH_NOISE_SECONDS ?? 60);
const RATE = 48000;
const FRAME = 480;
const FIXTURES = ['e2e-question.wav', 'warranty.wav', 'descale.wav', 'boil-time.wav'];

/** A mono PCM16 WAV as floats at 48 kHz (linear interpolation from its own rate). */
function readWav(file) {
  const buf = readFileSync(file);
  const rate = buf.readUInt32LE(24);
  let off = 12;
  while (buf.toString('ascii', off, off + 4) !== 'data') off += 8 + buf.readUInt32LE(off + 4);
  const n = buf.readUInt32LE(off + 4) / 2;
  const pcm = new Float32Array(n);
  for (let i = 0; i < n; i++) pcm[i] = buf.readInt16LE(off + 8 + i * 2) / 32768;
  if (rate === RATE) return pcm;
  const out = new Float32Array(Math.floor((n * RATE) / rate));
  for (let i = 0; i < out.length; i++) {
    const x = (i * rate) / RATE;
    const j = Math.floor(x);
    out[i] = (pcm[j] ?? 0) + ((pcm[j + 1] ?? 0) - (pcm[j] ?? 0)) * (x - j);
  }
  return out;
}

/** Runs samples through a processor in 128-sample render quanta (as the worklet gets them). */
function run(processor, input) {
  const output = new Float32Array(input.length);
  for (let i = 0; i < input.length; i += 128) processor.process(input.subarray(i, i + 128), output.subarray(i, i + 128));
  return output;
}

const rms = (a) => Math.sqrt(a.reduce((s, x) => s + x * x, 0) / Math.max(1, a.length));

async function main() {
  const dir = process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : (ensureBuilt(), distDir);
  const noise = await import(pathToFileURL(path.join(dir, 'noise', 'index.js')).href);
  const wasm = readFileSync(path.join(dir, 'noise', 'rnnoise_simd.wasm'));
  const module = await WebAssembly.compile(wasm);

  // 1. CPU: speech and a seeded noise bed, looped to SECONDS of audio.
  const speech = readWav(path.join(root, 'test/fixtures/audio', FIXTURES[0]));
  const { seededRandom } = await loadLab();
  const bed = seededRandom(11);
  const input = new Float32Array(RATE * SECONDS);
  for (let i = 0; i < input.length; i++) input[i] = speech[i % speech.length] + 0.01 * (bed() - 0.5);
  const rnnoise = await noise.instantiateRnnoise(module);
  const gated = new noise.FrameProcessor(rnnoise.denoise, {});
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  run(gated, input);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const wallMs = performance.now() - wallBefore;
  const share = cpuMs / (SECONDS * 1000);
  rnnoise.destroy();

  // 2. Bytes: what an enabled call fetches.
  const bundled = await esbuild.build({ entryPoints: [path.join(dir, 'noise', 'index.js')], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  const chunk = bundled.outputFiles[0].contents;
  const worklet = readFileSync(path.join(dir, 'noise', 'rnnoise-worklet.js'));
  const files = { chunk, worklet, wasm };
  const bytes = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, { raw: v.length, gzip: gzipSync(v, { level: 9 }).length }]));
  const totalRaw = Object.values(bytes).reduce((s, b) => s + b.raw, 0);
  const totalGzip = Object.values(bytes).reduce((s, b) => s + b.gzip, 0);

  // 3. Words clipped on each fixture, between 1 s of quiet noise before and after.
  const perFixture = [];
  for (const name of FIXTURES) {
    const voice = readWav(path.join(root, 'test/fixtures/audio', name));
    const audio = new Float32Array(voice.length + 2 * RATE);
    const hiss = seededRandom(5);
    for (let i = 0; i < audio.length; i++) audio[i] = 0.003 * (hiss() - 0.5);
    audio.set(voice.map((x, i) => x + audio[RATE + i]), RATE);
    const a = await noise.instantiateRnnoise(module);
    const b = await noise.instantiateRnnoise(module);
    const withGate = new noise.FrameProcessor(a.denoise, {});
    const alone = new noise.FrameProcessor(b.denoise, false);
    const out = run(withGate, audio);
    const ref = run(alone, audio);
    a.destroy();
    b.destroy();
    const lagFrames = withGate.latencySamples / FRAME - alone.latencySamples / FRAME;
    // Words: runs of frames louder than -30 dB under the fixture's loudest, joined over gaps under 40 ms (TTS leaves short pauses between words).
    const frames = Math.floor(audio.length / FRAME);
    const level = Array.from({ length: frames }, (_, f) => rms(audio.subarray(f * FRAME, (f + 1) * FRAME)));
    const loudest = Math.max(...level);
    const words = [];
    for (let f = 0; f < frames; f++) {
      if (level[f] < loudest * 10 ** (-30 / 20)) continue;
      const last = words.at(-1);
      if (last && f - last.end <= 4) last.end = f;
      else words.push({ start: f, end: f });
    }
    let clipped = 0;
    for (const word of words) {
      let cut = false;
      for (let f = word.start; f <= word.end && !cut; f++) {
        const o = (f + lagFrames + 1) * FRAME; // +1: the processors' own framing frame
        const r = (f + 1) * FRAME;
        const sent = rms(out.subarray(o, o + FRAME));
        const cleaned = rms(ref.subarray(r, r + FRAME));
        if (cleaned > 1e-4 && sent < 0.5 * cleaned) cut = true;
      }
      if (cut) clipped++;
    }
    perFixture.push({ name, words: words.length, clipped, sentFrames: withGate.counters.sent, frames: withGate.counters.frames });
  }
  const words = perFixture.reduce((n, f) => n + f.words, 0);
  const clipped = perFixture.reduce((n, f) => n + f.clipped, 0);

  return {
    name: 'noise-gate',
    title: 'rnnoise + voice gate (kb-voice/noise)',
    ok: true,
    figures: [
      { label: 'Worklet CPU per call (rnnoise + tone check + gate, one core)', value: `${fmtPct(share, 2)} (${((cpuMs / (SECONDS * 100)) * 1000).toFixed(0)} µs per 10 ms frame)`, target: '<= 5% of a core', met: share <= 0.05 },
      { label: 'Downloaded when rnnoise is enabled (chunk + worklet + SIMD wasm)', value: `${(totalGzip / 1000).toFixed(1)} KB gzipped (${(totalRaw / 1000).toFixed(1)} KB raw); 0 when not enabled`, target: 'reported', met: true },
      { label: 'Words clipped by the gate (TTS fixtures)', value: `${clipped} of ${words}`, target: '0', met: clipped === 0 },
    ],
    details: { seconds: SECONDS, cpuMs: Math.round(cpuMs), wallMs: Math.round(wallMs), bytes, perFixture },
    notes: [`CPU from process.cpuUsage over ${SECONDS} s of audio processed as fast as possible (SIMD build, Node ${process.version}); a browser's worklet runs the same code`],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('noise-gate', 'rnnoise + voice gate', main);
}
