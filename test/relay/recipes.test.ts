import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, toNodeHandler, type Relay, type RelayLogEntry, type RelayOptions } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// Each recipe of docs/relay.md's "Mount the relay" section, mounted for real on a loopback port. Every
// one must answer a GET (E13) and a JSON POST (RS signaling) and keep the host's own routes working.

let upstream: FakeUpstream;
const logs: RelayLogEntry[] = [];
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) =>
    req.method === 'POST' ? sendJson(res, 201, { session_id: 'sid-1', type: 'answer', sdp: `answer to ${JSON.parse(req.body).sdp}` }) : sendJson(res, 200, { path: req.url }),
  );
});
afterAll(() => upstream.close());
beforeEach(() => {
  logs.length = 0;
});

const options = (extra: Partial<RelayOptions> = {}): RelayOptions => ({
  upstream: upstream.url,
  apiKey: KEY,
  robots: '*', authorize: () => ({ userIdentifier: 'qa', role: 'admin' }),
  logger: (e) => logs.push(e),
  ...extra,
});

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise<void>((resolve) => {
  server.close(() => resolve());
  server.closeAllConnections();
});

/** The two calls every recipe must serve, through `base` (the host's origin). */
async function exercise(base: string, init: { origin?: string } = {}) {
  const headers: Record<string, string> = init.origin ? { origin: init.origin } : {};
  const get = await fetch(`${base}/api/voice/v1/robots/${ROBOT}/realtime-usage`, { headers, signal: AbortSignal.timeout(20_000) });
  const post = await fetch(`${base}/api/voice/v1/robots/${ROBOT}/realtime/sessions`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp: 'v=0 offer' }), signal: AbortSignal.timeout(20_000),
  });
  return { get: { status: get.status, body: await get.json() }, post: { status: post.status, body: await post.json() } };
}

const OK = { get: { status: 200, body: { path: `/v1/robots/${ROBOT}/realtime-usage` } }, post: { status: 201, body: { session_id: 'sid-1', type: 'answer', sdp: 'answer to v=0 offer' } } };

describe('Mount the relay: recipes', () => {
  it('node:http — serveRelay', async () => {
    const server = await serveRelay(createRelay(options()), { port: 0 });
    try {
      expect(await exercise(server.url)).toEqual(OK);
    } finally {
      await server.close();
    }
  });

  it('Express — app.use(toNodeHandler(relay)), other routes untouched', async () => {
    const app = express();
    app.use(toNodeHandler(createRelay(options())));
    app.get('/health', (_req, res) => void res.send('ok'));
    const server = app.listen(0, '127.0.0.1');
    const base = await listen(server).catch(() => `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      expect(await exercise(base)).toEqual(OK);
      expect(await (await fetch(`${base}/health`)).text()).toBe('ok');
    } finally {
      await close(server);
    }
  });

  it('Express — after express.json() (the usual order): the parsed body is used, nothing hangs', async () => {
    const app = express();
    app.use(express.json());
    app.use('/api/voice', toNodeHandler(createRelay(options())));
    const server = app.listen(0, '127.0.0.1');
    const base = await listen(server).catch(() => `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      expect(await exercise(base)).toEqual(OK);
    } finally {
      await close(server);
    }
  });

  it('Express — a middleware that read the body and left nothing: a clear 500 naming the cause, at once', async () => {
    const app = express();
    app.use((req, _res, next) => {
      req.on('data', () => {});
      req.on('end', () => next());
    });
    // A deadline far beyond the test's own timeout: an answer can only come from seeing the body gone.
    app.use(toNodeHandler(createRelay(options({ timeoutMs: 3_600_000 }))));
    const server = app.listen(0, '127.0.0.1');
    const base = await listen(server).catch(() => `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      // "At once": the relay sees the body is gone instead of waiting for it (a relay that waited
      // would answer nothing before the test timed out, or its deadline's error, not this 500).
      const res = await fetch(`${base}/api/voice/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"offer","sdp":"v=0"}' });
      expect(res.status).toBe(500);
      expect((await res.json()).detail).toMatch(/request body was consumed before the relay/);
      expect(logs.find((l) => l.status === 500)?.reason).toMatch(/mount the relay before body parsers/);
    } finally {
      await close(server);
    }
  });

  it('Fastify — the relay in its own scope, without Fastify body parsing', async () => {
    const app = Fastify();
    const handler = toNodeHandler(createRelay(options()));
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.all('/api/voice/*', async (request, reply) => {
        reply.hijack();
        await handler(request.raw, reply.raw);
      });
    });
    app.get('/health', async () => 'ok');
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect(await exercise(base)).toEqual(OK);
      expect(await (await fetch(`${base}/health`)).text()).toBe('ok');
    } finally {
      await app.close();
    }
  });

  it('Hono — app.all(prefix/*) with c.req.raw (and c.env on Node)', async () => {
    const relay = createRelay(options());
    const app = new Hono();
    app.all('/api/voice/*', (c) => relay.fetch(c.req.raw, c.env));
    app.get('/health', (c) => c.text('ok'));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    const base = await new Promise<string>((resolve) => server.once('listening', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
    try {
      expect(await exercise(base)).toEqual(OK);
      expect(await (await fetch(`${base}/health`)).text()).toBe('ok');
    } finally {
      await close(server);
    }
  });

  it('Next.js-style route handlers — app/api/voice/[...path]/route.ts', async () => {
    // The module a Next.js app would have (one handler per method, each a (Request) => Response).
    const relay = createRelay(options());
    const route = { GET: (req: Request) => relay.fetch(req), POST: (req: Request) => relay.fetch(req), PATCH: (req: Request) => relay.fetch(req), DELETE: (req: Request) => relay.fetch(req), OPTIONS: (req: Request) => relay.fetch(req) };
    // A minimal stand-in for Next's router: dispatch /api/voice/* by method.
    const server = serve({
      fetch: (req: Request) => {
        const handler = new URL(req.url).pathname.startsWith('/api/voice/') ? route[req.method as keyof typeof route] : undefined;
        return handler ? handler(req) : new Response('not found', { status: 404 });
      },
      port: 0,
      hostname: '127.0.0.1',
    }) as Server;
    const base = await new Promise<string>((resolve) => server.once('listening', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
    try {
      expect(await exercise(base)).toEqual(OK);
    } finally {
      await close(server);
    }
  });

  it('Workers-style — export default { fetch } with the key from env', async () => {
    interface Env { KB_VOICE_API_KEY: string; KB_VOICE_UPSTREAM: string }
    let relay: Relay | undefined;
    // The module a Worker would export; the global fetch reaches the upstream (as in Workers).
    const worker = {
      fetch(request: Request, env: Env): Promise<Response> {
        relay ??= createRelay({ upstream: env.KB_VOICE_UPSTREAM, apiKey: env.KB_VOICE_API_KEY, robots: '*', authorize: () => ({ userIdentifier: 'qa', role: 'admin' }), fetch: (url, init) => fetch(url, init), logger: (e) => logs.push(e) });
        return relay.fetch(request, env);
      },
    };
    const env: Env = { KB_VOICE_API_KEY: KEY, KB_VOICE_UPSTREAM: upstream.url };
    // Served the way a local Workers runtime would call it: one fetch(request, env) per request.
    const server = serve({ fetch: (req: Request) => worker.fetch(req, env), port: 0, hostname: '127.0.0.1' }) as Server;
    const base = await new Promise<string>((resolve) => server.once('listening', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
    try {
      expect(await exercise(base)).toEqual(OK);
    } finally {
      await close(server);
    }
  });
});

describe('Vite dev-server proxy', () => {
  // Its own empty root: with root '/tmp' Vite's dependency scan crawled whatever /tmp held (a busy-core
  // run's clones with their node_modules: 24-31 s to start, past the test's 30 s). And each test keeps
  // its servers in its own variables: one that timed out went on and closed the next test's relay.
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kb-voice-vite-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function startVite(target: string, changeOrigin: boolean): Promise<{ vite: ViteDevServer; page: string }> {
    const vite = await createViteServer({
      configFile: false,
      logLevel: 'silent',
      root,
      optimizeDeps: { noDiscovery: true },
      server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, proxy: { '/api/voice': { target, changeOrigin } } },
    });
    await vite.listen();
    return { vite, page: `http://127.0.0.1:${(vite.httpServer!.address() as AddressInfo).port}` };
  }

  it('works with the default proxy (the relay sees the page origin as its own)', async () => {
    const relayServer = await serveRelay(createRelay(options()), { port: 0 });
    let vite: ViteDevServer | undefined;
    try {
      const started = await startVite(relayServer.url, false);
      vite = started.vite;
      // Browsers send Origin on POST even to the same origin: the page's own origin here.
      expect(await exercise(started.page, { origin: started.page })).toEqual(OK);
    } finally {
      await vite?.close();
      await relayServer.close();
    }
  });

  it('with changeOrigin: true the page origin is foreign (403, logged with the origin) unless allowed', async () => {
    let relayServer = await serveRelay(createRelay(options()), { port: 0 });
    const port = Number(new URL(relayServer.url).port);
    let vite: ViteDevServer | undefined;
    try {
      const started = await startVite(relayServer.url, true);
      vite = started.vite;
      const page = started.page;
      const refused = await exercise(page, { origin: page });
      expect(refused.get.status).toBe(403);
      expect(refused.get.body).toEqual({ detail: 'Origin not allowed' });
      const entry = logs.find((l) => l.status === 403)!;
      expect(entry).toMatchObject({ level: 'warn', method: 'GET', endpoint: 'E13' });
      expect(entry.reason).toContain(`origin ${page} is neither the relay's own`);
      // The fix docs/relay.md gives: allow the dev page's origin.
      await relayServer.close();
      relayServer = await serveRelay(createRelay(options({ allowedOrigins: [page] })), { port });
      expect(await exercise(page, { origin: page })).toEqual(OK);
    } finally {
      await vite?.close();
      await relayServer.close();
    }
  });
});
