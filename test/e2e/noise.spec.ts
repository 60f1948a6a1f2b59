/**
 * rnnoise and the client voice gate in Chromium (issue 35), from the built package:
 * 1. `kb-voice/noise` is lazy: a page using VoiceSession downloads none of it until a call asks for
 *    `noiseSuppression: 'rnnoise'` (then its chunk, the worklet and one WebAssembly build), and a
 *    `browser` call never does.
 * 2. The gate sends the TTS question and silences beeps, clicks and fan-like noise (sound made by
 *    the page with Web Audio, through the real worklet and rnnoise).
 * 3. Without AudioWorklet the call falls back to the browser's processing and says so.
 * The page is bundled by esbuild with code splitting, as an app's bundler would.
 */
import { test, expect, type Page } from '@playwright/test';
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const SILENCE = resolve(ROOT, 'test/fixtures/audio/e2e-silence.wav');

// The page starts its AudioContext without a click (an app starts calls from one).
test.use({ launchOptions: chromiumLaunchOptions([`--use-file-for-fake-audio-capture=${SILENCE}`, '--autoplay-policy=no-user-gesture-required']) });

let server: Server;
let origin: string;
/** Every path the server was asked for, in order (worklet fetches included, which the page's request events miss). */
const served: string[] = [];

test.beforeAll(async () => {
  const built = await build({
    entryPoints: { page: resolve(HERE, 'noise/page.ts') }, bundle: true, splitting: true, format: 'esm', platform: 'browser',
    target: 'es2022', outdir: '/assets', write: false, logLevel: 'silent',
    // kb-voice as an app resolves it (the built package), not through this repo's tsconfig paths.
    tsconfigRaw: {},
  });
  const files = new Map<string, { body: Buffer | string; type: string }>();
  for (const file of built.outputFiles) files.set(file.path, { body: file.text, type: 'text/javascript' });
  for (const [name, type] of [['rnnoise-worklet.js', 'text/javascript'], ['rnnoise_simd.wasm', 'application/wasm']] as const) {
    files.set(`/noise/${name}`, { body: await readFile(resolve(ROOT, 'dist/noise', name)), type });
  }
  files.set('/audio/e2e-question.wav', { body: await readFile(resolve(ROOT, 'test/fixtures/audio/e2e-question.wav')), type: 'audio/wav' });
  files.set('/', { body: '<!doctype html><title>noise</title><script type="module" src="/assets/page.js"></script>', type: 'text/html' });
  server = createServer((req, res) => {
    served.push(req.url ?? '');
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((r) => server?.close(r));
});

/** Opens the page; the paths it requests from now on are `served`. */
async function open(page: Page): Promise<string[]> {
  served.splice(0);
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => typeof window.noise === 'object');
  return served;
}

/** Requests that belong to rnnoise: its chunk (the module that has the worklet's URL), the worklet, the WebAssembly. */
async function noiseRequests(page: Page, requested: string[]): Promise<string[]> {
  const chunks = requested.filter((p) => p.startsWith('/assets/') && p !== '/assets/page.js');
  const texts = await Promise.all(chunks.map(async (p) => [p, await (await page.request.get(`${origin}${p}`)).text()] as const));
  return [...texts.filter(([, text]) => text.includes('kb-voice-rnnoise')).map(([p]) => p), ...requested.filter((p) => p.startsWith('/noise/'))];
}

test('rnnoise loads only when a call enables it, and the gate passes speech and silences noise', async ({ page }) => {
  test.setTimeout(60_000);
  const requested = await open(page);
  expect(await noiseRequests(page, requested)).toEqual([]);

  expect(await page.evaluate(() => window.noise.call('browser'))).toEqual({ requested: 'browser', active: 'browser', gate: false });
  expect(await noiseRequests(page, requested)).toEqual([]);

  expect(await page.evaluate(() => window.noise.call('rnnoise'))).toEqual({ requested: 'rnnoise', active: 'rnnoise', gate: true });
  const loaded = await noiseRequests(page, requested);
  expect(loaded).toContain('/noise/rnnoise-worklet.js');
  expect(loaded.filter((p) => p.endsWith('.wasm'))).toEqual(['/noise/rnnoise_simd.wasm']);
  expect(loaded.some((p) => p.startsWith('/assets/'))).toBe(true);

  const speech = await page.evaluate(() => window.noise.gate('speech'));
  expect(speech.stats.voiced).toBeGreaterThan(0);
  expect(speech.stats.sent).toBeGreaterThan(0);
  expect(speech.peak).toBeGreaterThan(0.01);
  expect(speech.audible).toBeGreaterThan(0.05); // the question is ~1.5 s of a 14 s file (silence after it)
  expect(speech.stats.sent).toBeGreaterThanOrEqual(speech.stats.voiced); // every voiced frame, plus pre-roll and hangover
  for (const kind of ['beeps', 'clicks', 'fan'] as const) {
    const noise = await page.evaluate((k) => window.noise.gate(k), kind);
    expect.soft(noise.stats.frames, kind).toBeGreaterThan(300);
    expect.soft(noise.stats.sent, kind).toBe(0);
    expect.soft(noise.audible, kind).toBe(0);
  }
});

test('without AudioWorklet an rnnoise call falls back to the browser processing and says so', async ({ page }) => {
  await page.addInitScript(() => {
    delete (window as { AudioWorkletNode?: unknown }).AudioWorkletNode;
  });
  const requested = await open(page);
  expect(await page.evaluate(() => window.noise.call('rnnoise'))).toEqual({ requested: 'rnnoise', active: 'browser', reason: 'no_audio_worklet', gate: false });
  expect(await noiseRequests(page, requested)).toEqual([]);
});
