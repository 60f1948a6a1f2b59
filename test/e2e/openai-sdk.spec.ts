/**
 * The official client works against us: OpenAI's Agents SDK for realtime voice
 * (`@openai/agents-realtime`, `RealtimeSession` + `OpenAIRealtimeWebRTC`, unpatched) in Chromium,
 * bundled with esbuild into a page served from its own loopback origin. Its `baseUrl` is the
 * emulator's `/v1/realtime/calls`; the `ek_` is minted by the relay for the signed-in user (the page
 * never sees the API key).
 * A typed question gets a spoken answer stating the warranty, the SDK's history holds both messages,
 * and the call is then a session in E13 (usage) and E14 (recorded audio).
 */
import { test, expect } from '@playwright/test';
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createApiClient } from 'kb-voice/api';
import { createRelay, type Relay } from 'kb-voice/relay';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import type { CallResult } from './openai-sdk/page.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SILENCE = resolve(HERE, '../fixtures/audio/e2e-silence.wav');

test.use({ launchOptions: chromiumLaunchOptions([`--use-file-for-fake-audio-capture=${SILENCE}`]) });

let emulator: Emulator;
let relay: Relay;
let pageServer: Server;
let pageUrl: string;

test.beforeAll(async () => {
  emulator = await startEmulator({ port: 0, agentBuildMs: 300, realtime: { voice: 'builtin' } });
  relay = createRelay({
    upstream: emulator.url, apiKey: emulator.apiKey, prefix: '/api/voice', logger: () => undefined,
    authorize: () => ({ userIdentifier: 'sdk-user', role: 'user' }),
  });
  const bundle = await build({
    entryPoints: [resolve(HERE, 'openai-sdk/page.ts')],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  pageServer = createServer((req, res) => {
    if (req.url === '/page.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>OpenAI SDK</title><script type="module" src="/page.js"></script>');
  });
  await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
});

test.afterAll(async () => {
  await new Promise((r) => pageServer?.close(r));
  await emulator?.close();
});

test('OpenAI Agents SDK (RealtimeSession over WebRTC) talks to the emulator', async ({ page }) => {
  const robotId = emulator.fixtures.robotId;
  // The app's server asks its relay for an ephemeral key for the signed-in user and this robot.
  const minted = await relay.fetch(new Request(`http://app.test/api/voice/v1/robots/${robotId}/realtime/client_secrets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session: { audio: { input: { transcription: { language: 'en' } } } } }),
  }));
  expect(minted.status).toBe(200);
  const { value: clientSecret } = (await minted.json()) as { value: string };

  const sent: string[] = [];
  page.on('request', (r) => {
    sent.push(`${r.method()} ${r.url()} ${r.headers()['authorization'] ?? ''}`);
  });
  await page.goto(pageUrl);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const result: CallResult = await page.evaluate(
    (args) => window.oaiCall(args),
    { callsUrl: `${emulator.url}/v1/realtime/calls`, clientSecret, model: robotId, question: 'How long is the warranty?' },
  );

  expect(result.errors).toEqual([]);
  expect(result.transcript).toMatch(/two-year warranty/);
  expect(result.audioEnergy).toBeGreaterThan(0);
  const messages = result.history.filter((i) => i.type === 'message');
  expect(messages).toHaveLength(2);
  expect(messages[0]).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] });
  expect(messages[1]).toMatchObject({ role: 'assistant', status: 'completed', content: [{ type: 'output_audio', transcript: result.transcript }] });
  expect(result.callId).toMatch(/^[0-9a-f-]{36}$/);
  // The page held the ek_ only, never the API key.
  expect(sent.join('\n')).not.toContain(emulator.apiKey);

  // Afterwards the call is a session: its usage in E13 and its recorded audio in E14.
  const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  await expect.poll(async () => (await api.realtime.usage(robotId)).sessions.find((s) => s.session_id === result.callId)?.turn_count).toBe(1);
  const row = (await api.realtime.usage(robotId)).sessions.find((s) => s.session_id === result.callId)!;
  expect(row).toMatchObject({ user_identifier: 'sdk-user' });
  expect(row.output_tokens).toBeGreaterThan(0);
  const audio = await api.realtime.audio(robotId, { session_id: result.callId! });
  expect(audio.segments.length).toBeGreaterThanOrEqual(1);
  const wav = await fetch(audio.segments[0]!.url);
  expect(wav.headers.get('content-type')).toBe('audio/wav');
});
