/**
 * The OpenAI Realtime dialect in Chromium, against the emulator and the relay on loopback:
 * 1. The official client works against us: OpenAI's Agents SDK for realtime voice
 *    (`@openai/agents-realtime`, `RealtimeSession` + `OpenAIRealtimeWebRTC`, unpatched), bundled with
 *    esbuild into a page served from its own origin. Its `baseUrl` is the emulator's
 *    `/v1/realtime/calls`; the `ek_` is minted by the relay for the signed-in user (the page never
 *    sees the API key). A typed question gets a spoken answer stating the warranty, the SDK's history
 *    holds both messages, and the call is then a session in E13 (usage) and E14 (recorded audio).
 * 2. The same scenario with kb-voice's `VoiceSession` and `openaiProtocol`, through the relay's
 *    unified interface.
 */
import { test, expect } from '@playwright/test';
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createApiClient } from 'kb-voice/api';
import { createRelay, serveRelay, type RelayServer } from 'kb-voice/relay';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import type { CallResult } from './openai-realtime/sdk-page.js';
import type { VoiceSessionResult } from './openai-realtime/voice-session-page.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SILENCE = resolve(HERE, '../fixtures/audio/e2e-silence.wav');
const USER = 'oai-user';

test.use({ launchOptions: chromiumLaunchOptions([`--use-file-for-fake-audio-capture=${SILENCE}`]) });

let emulator: Emulator;
let relay: RelayServer;
let relayUrl: string;
let pageServer: Server;
let pageOrigin: string;

/** Bundles one page entry for the browser (esbuild, the consumer's defaults). */
async function bundle(entry: string): Promise<string> {
  const out = await build({ entryPoints: [resolve(HERE, entry)], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent',
    // Resolve kb-voice as an app would (the built package), not through this repo's tsconfig paths.
    tsconfigRaw: {},
  });
  return out.outputFiles[0]!.text;
}

test.beforeAll(async () => {
  emulator = await startEmulator({ port: 0, agentBuildMs: 300, realtime: { voice: 'builtin' } });
  const scripts: Record<string, string> = {
    '/sdk.js': await bundle('openai-realtime/sdk-page.ts'),
    '/voice-session.js': await bundle('openai-realtime/voice-session-page.ts'),
  };
  pageServer = createServer((req, res) => {
    const script = scripts[req.url ?? ''];
    if (script) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    const name = req.url === '/voice-session' ? '/voice-session.js' : '/sdk.js';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>OpenAI dialect</title><script type="module" src="${name}"></script>`);
  });
  await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  relay = await serveRelay(
    createRelay({
      upstream: emulator.url, apiKey: emulator.apiKey, prefix: '/api/voice', allowedOrigins: [pageOrigin], logger: () => undefined,
      // The app's sign-in: every caller of this test is the same end user.
      robots: '*', authorize: () => ({ userIdentifier: USER, role: 'user' }),
    }),
    { port: 0 },
  );
  relayUrl = `${relay.url}/api/voice`;
});

test.afterAll(async () => {
  await new Promise((r) => pageServer?.close(r));
  await relay?.close();
  await emulator?.close();
});

test('OpenAI Agents SDK (RealtimeSession over WebRTC) talks to the emulator with a relay-minted ek_', async ({ page }) => {
  const robotId = emulator.fixtures.robotId;
  // The app's server asks its relay for an ephemeral key for the signed-in user and this robot.
  const minted = await fetch(`${relayUrl}/v1/robots/${robotId}/realtime/client_secrets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session: { audio: { input: { transcription: { language: 'en' } } } } }),
  });
  expect(minted.status).toBe(200);
  const { value: clientSecret } = (await minted.json()) as { value: string };

  const sent: string[] = [];
  page.on('request', (r) => {
    sent.push(`${r.method()} ${r.url()} ${r.headers()['authorization'] ?? ''}`);
  });
  await page.goto(`${pageOrigin}/sdk`);
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
  expect(row).toMatchObject({ user_identifier: USER });
  expect(row.output_tokens).toBeGreaterThan(0);
  const audio = await api.realtime.audio(robotId, { session_id: result.callId! });
  expect(audio.segments.length).toBeGreaterThanOrEqual(1);
  const wav = await fetch(audio.segments[0]!.url);
  expect(wav.headers.get('content-type')).toBe('audio/wav');
});

test('VoiceSession with openaiProtocol, through the relay\'s unified interface', async ({ page }) => {
  const robotId = emulator.fixtures.robotId;
  await page.goto(`${pageOrigin}/voice-session`);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const result: VoiceSessionResult = await page.evaluate(
    (args) => window.kbVoiceCall(args),
    { relayUrl, aiId: robotId, question: 'How long is the warranty?' },
  );
  expect(result.errors).toEqual([]);
  expect(result.turn).toMatchObject({ input: 'text', question: 'How long is the warranty?', interrupted: false });
  expect(result.turn.answer).toMatch(/two-year warranty/);
  expect(result.turn.firstResponseMs).toBeGreaterThan(0);
  expect(result.snapshotTurns).toBe(1);
  // The report (E13, E12, E14 through the relay, scoped to the caller) has the call.
  expect(result.report.sessionId).toBe(result.sessionId);
  expect(result.report.usage).toMatchObject({ user_identifier: USER, turn_count: 1 });
  expect(result.report.audio.length).toBeGreaterThanOrEqual(1);
});
