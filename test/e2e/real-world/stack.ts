/**
 * What the real-world specs run against: an emulator, a relay (every caller the same end user) and
 * the harness page (./page.ts bundled with esbuild from the built package) on loopback.
 */
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createRelay, serveRelay, type RelayServer } from 'kb-voice/relay';
import type { Page } from '@playwright/test';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface RealWorldStack {
  emulator: Emulator;
  relayUrl: string;
  pageUrl: string;
  /** Opens the harness page in `page` and waits for its script. */
  open(page: Page): Promise<void>;
  close(): Promise<void>;
}

export async function startRealWorldStack(): Promise<RealWorldStack> {
  const emulator = await startEmulator({ port: 0, agentBuildMs: 100, realtime: { voice: 'builtin' } });
  const out = await build({
    entryPoints: [resolve(HERE, 'page.ts')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent',
    // Resolve kb-voice as an app would (the built package), not through this repo's tsconfig paths.
    tsconfigRaw: {},
  });
  const script = out.outputFiles[0]!.text;
  const pageServer: Server = createServer((req, res) => {
    if (req.url === '/page.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>real world</title><body><script type="module" src="/page.js"></script></body>');
  });
  await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
  const relay: RelayServer = await serveRelay(
    createRelay({
      upstream: emulator.url, apiKey: emulator.apiKey, prefix: '/api/voice', allowedOrigins: [new URL(pageUrl).origin], logger: () => undefined,
      robots: '*', authorize: () => ({ userIdentifier: 'real-world-user', role: 'user' }),
      // Every call of these tests is the same user, one after another: not the per-user limit's case.
      maxSessionsPerUser: 1000,
    }),
    { port: 0 },
  );
  return {
    emulator,
    relayUrl: `${relay.url}/api/voice`,
    pageUrl,
    async open(page) {
      await page.goto(pageUrl);
      await page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
    },
    async close() {
      await new Promise((r) => pageServer.close(r));
      await relay.close();
      await emulator.close();
    },
  };
}
