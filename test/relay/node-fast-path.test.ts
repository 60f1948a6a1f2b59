import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, toNodeHandler, type RelayCaller, type RelayLogEntry, type RelayServer } from '../../src/relay/index.js';
import { defaultHandler, KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// serveRelay(createRelay(...)) without a wrapper takes the Node fast path: lightweight requests and
// replies written straight to the socket (the other files mostly wrap the relay, which takes the
// generic web Request/Response path). The same rules must hold on both.

let upstream: FakeUpstream;
let server: RelayServer;
const logs: RelayLogEntry[] = [];
const hookSaw: { isRequest: boolean; header: string | null; mode: string; cloned: string }[] = [];

const authorize = async (req: Request): Promise<RelayCaller | null> => {
  const token = req.headers.get('x-app-session');
  // Touching members the fast path does not pre-build must still give real Request behaviour.
  hookSaw.push({ isRequest: req instanceof Request, header: token, mode: req.mode, cloned: req.clone().url });
  if (token === 'admin') return { userIdentifier: 'qa', role: 'admin' };
  if (token?.startsWith('user:')) return { userIdentifier: token.slice(5), role: 'user' };
  return null;
};

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const relay = createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize, allowedOrigins: ['http://app.test'], secret: 'fast-path-secret', timeoutMs: 3000, maxBodyBytes: 1024, logger: (e) => logs.push(e) });
  server = await serveRelay(relay, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.setHandler(defaultHandler);
  upstream.seen.length = 0;
  hookSaw.length = 0;
});

const usage = `/api/voice/v1/robots/${ROBOT}/realtime-usage`;
const call = (path: string, init: RequestInit = {}) => fetch(server.url + path, { ...init, headers: { 'x-app-session': 'admin', ...(init.headers as Record<string, string>) } });

describe('Node fast path (serveRelay of a createRelay relay)', () => {
  it('passes a JSON body through with a correct length, allowlisted headers only, and the bearer key upstream', async () => {
    upstream.setHandler((req, res) => sendJson(res, 200, { got: req.url }, { 'x-internal': 'secret-host', 'set-cookie': 'a=b', etag: '"e1"' }));
    const res = await call(`${usage}?start_time=2024-01-01T00:00:00Z`, { headers: { authorization: 'Bearer forged', cookie: 'sid=1', 'accept-language': 'ja' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ got: `/v1/robots/${ROBOT}/realtime-usage?start_time=2024-01-01T00%3A00%3A00Z` });
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('etag')).toBe('"e1"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-internal')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    const seen = upstream.seen[0]!;
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['accept-language']).toBe('ja');
    expect(hookSaw).toEqual([{ isRequest: true, header: 'admin', mode: 'cors', cloned: `${server.url}${usage}?start_time=2024-01-01T00:00:00Z` }]);
  });

  it('refuses before any upstream call: 401, 404 off the allowlist, 422, 413, foreign origin 403', async () => {
    expect((await fetch(server.url + usage)).status).toBe(401);
    expect((await call('/api/voice/v1/ais/gen_prompt', { method: 'POST' })).status).toBe(404);
    expect((await call(`/api/voice/v1/robots/not-a-uuid/realtime/warmup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(422);
    const big = await call(`/api/voice/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_identifier: 'x'.repeat(2000) }) });
    expect(big.status).toBe(413);
    expect((await call(usage, { headers: { origin: 'http://evil.test' } })).status).toBe(403);
    expect(upstream.seen).toHaveLength(0);
  });

  it('forwards a validated JSON body and adds CORS headers for an allowed origin', async () => {
    upstream.setHandler((req, res) => sendJson(res, 200, { body: req.body, type: req.headers['content-type'] }));
    const res = await call(`/api/voice/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://app.test' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test');
    const got = await res.json();
    expect(got.type).toBe('application/json');
    // The validated form is forwarded (schema defaults applied).
    expect(JSON.parse(got.body)).toEqual({ language: 'ja' });
  });

  it('answers 502 without the key when the first chunk would echo it, and cuts the stream when a later one would', async () => {
    upstream.setHandler((req, res) => sendJson(res, 200, { echo: req.headers.authorization }));
    let res = await call(usage);
    expect(res.status).toBe(502);
    expect(await res.text()).not.toContain(KEY);
    upstream.setHandler((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"x":"' + 'a'.repeat(100));
      // The key split over two chunks, after the first bytes went out.
      const auth = req.headers.authorization!;
      setTimeout(() => res.write(auth.slice(0, 12)), 20);
      setTimeout(() => res.end(`${auth.slice(12)}"}`), 40);
    });
    res = await call(usage);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(logs.some((l) => l.message.includes('secret'))).toBe(true);
  });

  it('streams an event stream chunk by chunk and a large body with backpressure', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    upstream.setHandler(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      await gate;
      res.end('data: two\n\n');
    });
    let res = await call(usage);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    release();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: two\n\n');

    const chunk = 'x'.repeat(64 * 1024);
    upstream.setHandler(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < 64; i++) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      res.end();
    });
    // Each wait for 'drain' must not leave a 'close' listener behind (64 waits here: 64 leaked
    // listeners and a MaxListenersExceededWarning before the fix).
    let closeListeners = -1;
    const count = (_req: unknown, out: import('node:http').ServerResponse) => out.once('finish', () => (closeListeners = out.listenerCount('close')));
    server.server.on('request', count);
    try {
      res = await call(usage);
      expect((await res.arrayBuffer()).byteLength).toBe(64 * chunk.length);
    } finally {
      server.server.off('request', count);
    }
    // Measured (the 'finish' listener ran), and no 'close' listener per wait left behind.
    expect(closeListeners).toBeGreaterThanOrEqual(0);
    expect(closeListeners).toBeLessThan(5);
  });

  it('aborts the upstream request when the caller goes away mid-stream', async () => {
    const upstreamClosed = new Promise<void>((resolve) => {
      upstream.setHandler((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        res.on('close', () => resolve());
      });
    });
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.url}${usage}`, { headers: { 'x-app-session': 'admin' } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
      req.end();
    });
    await upstreamClosed;
  });

  it('answers 504 when the upstream does not answer in time and cuts the body when the upstream does', async () => {
    upstream.setHandler(() => {});
    expect((await call(usage)).status).toBe(504);
    upstream.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 10);
    });
    const res = await call(usage);
    // Never a completed body: 502 when the failure came before the first bytes went out (the relay
    // reads what arrives in its first turn before answering), else a cut body.
    if (res.status === 502) expect(await res.json()).toEqual({ detail: 'Upstream response failed' });
    else {
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
    }
  });

  it('serves role user with its scoped JSON (relay-made bodies)', async () => {
    upstream.setHandler((_req, res) => sendJson(res, 200, { bot_id: ROBOT, session_count: 1, sessions: [{ session_id: '00000000-0000-4000-8000-000000000000', user_identifier: 'bob', turn_count: 1 }] }));
    const res = await call(usage, { headers: { 'x-app-session': 'user:bob' } });
    expect(res.status).toBe(200);
    const body = await res.json();
    // The session was not minted for bob through the relay: filtered out.
    expect(body).toMatchObject({ bot_id: ROBOT, session_count: 0, sessions: [] });
  });

  it('leaks the key in no log line', () => {
    for (const l of logs) expect(JSON.stringify(l)).not.toContain(KEY);
  });
});

describe('createNodeFetch (the Node upstream client as a fetch)', () => {
  it('sends the path the URL parser would: the fast split for plain paths, the full parse for odd ones', async () => {
    const { createNodeFetch } = await import('../../src/relay/index.js');
    const nodeFetch = createNodeFetch();
    const cases = [
      `${upstream.url}/v1/robots/${ROBOT}/realtime-usage?start_time=1&end_time=2`,
      `${upstream.url}/v1/a b/../c?q=x y`,
      `${upstream.url}/v1/./d/%2E%2E/e`,
      `${upstream.url}?only=query`,
      `${upstream.url}/v1/f#fragment`,
    ];
    for (const url of cases) {
      upstream.seen.length = 0;
      const response = await nodeFetch(url, { method: 'GET', headers: {} });
      await response.arrayBuffer();
      const parsed = new URL(url);
      expect(upstream.seen.at(-1)?.url, url).toBe(parsed.pathname + parsed.search);
    }
  });
});

describe('toNodeHandler as a promise chain', () => {
  it('a request it cannot read (a body parser left a circular body) is a rejection of its promise, never a synchronous throw', async () => {
    const handler = toNodeHandler(createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize }));
    const body: Record<string, unknown> = {};
    body.self = body;
    const req = { method: 'POST', url: `/api/voice/v1/robots/${ROBOT}/realtime/sessions`, headers: { 'content-type': 'application/json' }, _body: true, body, rawHeaders: [], socket: {} };
    let result: Promise<void> | undefined;
    expect(() => {
      result = handler(req as never, {} as never);
    }).not.toThrow();
    await expect(result).rejects.toThrow(/circular/i);
  });
});
