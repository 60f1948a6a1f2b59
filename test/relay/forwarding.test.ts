import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serveRelay, type RelayServer } from '../../src/relay/index.js';
import { defaultHandler, KEY, recordingRelay, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

let upstream: FakeUpstream;
let rec: ReturnType<typeof recordingRelay>;
const base = 'http://relay.test/api/voice';

beforeAll(async () => {
  upstream = await startFakeUpstream();
  rec = recordingRelay({ upstream: upstream.url, apiKey: KEY, allowedOrigins: ['http://app.test'], timeoutMs: 10_000, maxBodyBytes: 1024 });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.setHandler(defaultHandler);
  upstream.seen.length = 0;
});

const call = (path: string, init?: RequestInit) => rec.relay.fetch(new Request(base + path, init));

describe('forwarding (admin, no authorize hook)', () => {
  it('mirrors the path under the upstream, re-serialises the validated query and sends only the bearer key', async () => {
    const res = await call(`/v1/robots/${ROBOT}/realtime-cost?start_time=2024-01-01T00:00:00Z`, {
      headers: {
        authorization: 'Bearer forged-by-caller',
        cookie: 'sid=abc',
        'proxy-authorization': 'Basic eA==',
        'x-forwarded-for': '10.0.0.1',
        forwarded: 'for=10.0.0.1',
        te: 'trailers',
        'keep-alive': 'timeout=5',
        'x-internal-flag': '1',
        'accept-language': 'ja',
        'x-request-id': 'req-1',
      },
    });
    expect(res.status).toBe(200);
    const seen = upstream.seen[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe(`/v1/robots/${ROBOT}/realtime-cost?start_time=2024-01-01T00%3A00%3A00Z&model=auto`);
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    for (const h of ['cookie', 'proxy-authorization', 'x-forwarded-for', 'forwarded', 'te', 'keep-alive', 'x-internal-flag']) expect(seen.headers[h], h).toBeUndefined();
    expect(seen.headers['accept-language']).toBe('ja');
    expect(seen.headers['x-request-id']).toBe('req-1');
  });

  it('drops caller headers that the Connection header marks hop-by-hop', async () => {
    await call(`/v1/robots/${ROBOT}/realtime-usage`, { headers: { connection: 'accept-language', 'accept-language': 'en' } });
    expect(upstream.seen[0]!.headers['accept-language']).not.toBe('en');
  });

  it('forwards the validated JSON body (defaults applied) with a JSON content type', async () => {
    const res = await call(`/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ language: 'en' }) });
    expect(res.status).toBe(200);
    expect(JSON.parse(upstream.seen[0]!.body)).toEqual({ language: 'en' });
    expect(upstream.seen[0]!.headers['content-type']).toBe('application/json');
    // Admin bodies are not rewritten.
    await call(`/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_identifier: 'someone' }) });
    expect(JSON.parse(upstream.seen[1]!.body)).toEqual({ language: 'ja', user_identifier: 'someone' });
  });

  it('returns no upstream set-cookie or internal headers, and no-store', async () => {
    upstream.setHandler((_req, res) =>
      sendJson(res, 200, { success: true }, { 'set-cookie': 'upstream=1', 'x-internal-trace': 'node-7', server: 'internal/1.2', 'x-request-id': 'up-1', 'x-powered-by': 'x' }),
    );
    const res = await call(`/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect([...res.headers.keys()].sort()).toEqual(['cache-control', 'content-length', 'content-type', 'x-request-id']);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('passes 204 through with no body (E15 of another robot)', async () => {
    upstream.setHandler((_req, res) => res.writeHead(204).end());
    const res = await call(`/v1/${ROBOT}/sessions/abc`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('honours an upstream base path', async () => {
    const r = recordingRelay({ upstream: `${upstream.url}/service/`, apiKey: KEY });
    await r.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`));
    expect(upstream.seen[0]!.url).toBe(`/service/v1/robots/${ROBOT}/realtime-usage`);
  });
});

describe('limits and upstream failures', () => {
  it('answers 413 for a declared oversized body without reaching the upstream', async () => {
    const res = await call(`/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp: 'x'.repeat(2000) }) });
    expect(res.status).toBe(413);
    expect(upstream.seen).toHaveLength(0);
  });

  it('answers 413 for a streamed body that passes the cap, stopping the read', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        if (pulled > 100) c.close();
        else c.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
    const res = await rec.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit));
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    expect(upstream.seen).toHaveLength(0);
  });

  it('answers 504 when the upstream does not answer in time', async () => {
    upstream.setHandler(() => {});
    // Its own short time limit: the shared relay's is long enough for a loaded machine.
    const short = recordingRelay({ upstream: upstream.url, apiKey: KEY, timeoutMs: 300 });
    const res = await short.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`));
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ detail: 'Upstream timed out' });
  });

  it('answers 502 { detail } when the upstream is unreachable, without its address', async () => {
    const dead = await startFakeUpstream();
    const url = dead.url;
    await dead.close();
    const r = recordingRelay({ upstream: url, apiKey: KEY });
    const res = await r.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`));
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ detail: 'Upstream unreachable' });
    expect(text).not.toContain('127.0.0.1');
    expect(r.logs.some((l) => l.level === 'error' && l.status === 502)).toBe(true);
  });

  it('maps upstream 5xx and 401 to 502 without relaying their bodies', async () => {
    upstream.setHandler((req, res) => sendJson(res, 500, { detail: `boom at ${upstream.url} with ${req.headers.authorization}` }));
    let res = await call(`/v1/robots/${ROBOT}/realtime-usage`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ detail: 'Upstream error (status 500)' });
    upstream.setHandler((_req, res) => sendJson(res, 401, { detail: 'bad key' }));
    res = await call(`/v1/robots/${ROBOT}/realtime-usage`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ detail: 'Upstream refused the relay credentials' });
  });

  it('relays upstream 4xx bodies, except ones echoing the key or the upstream address', async () => {
    upstream.setHandler((_req, res) => sendJson(res, 404, { detail: 'Robot not found' }));
    let res = await call(`/v1/robots/${ROBOT}/realtime-usage`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Robot not found' });
    upstream.setHandler((req, res) => sendJson(res, 404, { detail: `no route ${upstream.url}${req.url} (${req.headers.authorization})` }));
    res = await call(`/v1/robots/${ROBOT}/realtime-usage`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Upstream error (status 404)' });
  });

  it('cuts a successful body that would echo the key', async () => {
    upstream.setHandler((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[],"x":"');
      setTimeout(() => res.end(`${req.headers.authorization}"}`), 20);
    });
    const res = await call(`/v1/${ROBOT}/session.messages?session_id=s1`);
    // Both withhold the key: on a loaded machine the two chunks can reach the relay together,
    // and a key inside the first read answers 502 before any byte is sent.
    if (res.status === 502) expect(await res.text()).not.toContain(KEY);
    else {
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
    }
  });

  it('answers 502 over node:http when the first chunk would echo the key', async () => {
    const server = await serveRelay(rec.relay, { port: 0 });
    try {
      upstream.setHandler((req, res) => sendJson(res, 200, { echo: req.headers.authorization }));
      const res = await fetch(`${server.url}/api/voice/v1/robots/${ROBOT}/realtime-usage`);
      expect(res.status).toBe(502);
      expect(await res.text()).not.toContain(KEY);
    } finally {
      await server.close();
    }
  });

  it('rate-limits through the hook with 429 and Retry-After, before any upstream call', async () => {
    const calls: string[] = [];
    const r = recordingRelay({
      upstream: upstream.url,
      apiKey: KEY,
      robots: '*', authorize: (req) => ({ userIdentifier: req.headers.get('x-user') ?? 'anon', role: 'admin' }),
      rateLimit: (_req, caller, endpoint) => {
        calls.push(`${caller.userIdentifier}:${endpoint}`);
        return caller.userIdentifier === 'greedy' ? { allowed: false, retryAfterSeconds: 7 } : true;
      },
    });
    const res = await r.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`, { headers: { 'x-user': 'greedy' } }));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(upstream.seen).toHaveLength(0);
    expect((await r.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`))).status).toBe(200);
    expect(calls).toEqual(['greedy:E13', 'anon:E13']);
  });
});

describe('CORS', () => {
  const path = `/v1/robots/${ROBOT}/realtime/warmup`;

  it('answers a preflight from an allowed origin without reaching the upstream', async () => {
    const res = await call(path, { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-session' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type, x-session');
    expect(res.headers.get('vary')).toBe('Origin');
    expect(upstream.seen).toHaveLength(0);
  });

  it('refuses preflights and requests from other origins, and preflights for paths off the allowlist', async () => {
    let res = await call(path, { method: 'OPTIONS', headers: { origin: 'http://evil.test', 'access-control-request-method': 'POST' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    res = await call('/v1/ais/gen_prompt', { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' } });
    expect(res.status).toBe(404);
    res = await call(path, { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'DELETE' } });
    expect(res.status).toBe(404);
    res = await call(path, { method: 'POST', headers: { origin: 'http://evil.test' } });
    expect(res.status).toBe(403);
    expect(upstream.seen).toHaveLength(0);
  });

  it('adds CORS headers only for allowed origins; same-origin and origin-less calls pass without them', async () => {
    let res = await call(path, { method: 'POST', headers: { origin: 'http://app.test' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    res = await call(path, { method: 'POST', headers: { origin: 'http://relay.test' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    res = await call(path, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    // Errors made by the relay carry them too, so the page can read them.
    res = await call('/nope', { headers: { origin: 'http://app.test' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test');
  });
});

describe('streaming pass-through', () => {
  let server: RelayServer;
  beforeAll(async () => {
    server = await serveRelay(rec.relay, { port: 0 });
  });
  afterAll(() => server.close());

  /** An upstream that sends one SSE event, then the next only when `release()` is called. */
  function gatedStream() {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    upstream.setHandler(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      await gate;
      res.end('data: two\n\n');
    });
    return { release };
  }

  async function readFirstThenRest(body: ReadableStream<Uint8Array>, release: () => void) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const first = decoder.decode((await reader.read()).value);
    release();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    return { first, rest };
  }

  it('returns the first event before the upstream finished (fetch handler)', async () => {
    const { release } = gatedStream();
    const res = await call(`/v1/${ROBOT}/session.messages?session_id=s1`, { headers: { accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(upstream.seen[0]!.headers.accept).toBe('text/event-stream');
    expect(await readFirstThenRest(res.body!, release)).toEqual({ first: 'data: one\n\n', rest: 'data: two\n\n' });
  });

  it('streams through the node:http server as well', async () => {
    const { release } = gatedStream();
    const res = await fetch(`${server.url}/api/voice/v1/${ROBOT}/session.messages?session_id=s1`);
    expect(res.status).toBe(200);
    expect(await readFirstThenRest(res.body!, release)).toEqual({ first: 'data: one\n\n', rest: 'data: two\n\n' });
  });

  it('serves raw request targets the fetch API would normalise (node:http)', async () => {
    const raw = (method: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        // Options form: the path is sent byte for byte, not resolved like a URL.
        const req = httpRequest({ host: '127.0.0.1', port: new URL(server.url).port, method, path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    upstream.setHandler((_req, res) => sendJson(res, 200, { ok: true }));
    expect(await raw('GET', `/api/voice/v1/robots/${ROBOT}/realtime-usage`)).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    for (const [method, path] of [
      ['GET', `/api/voice/v1/robots/${ROBOT}/../../ais/gen_prompt`],
      ['GET', `/api/voice/v1/robots/${ROBOT}/%2e%2e/%2e%2e/ais/gen_prompt`],
      ['GET', `//api/voice/v1/robots/${ROBOT}/realtime-usage`],
      ['GET', `/api/voice/v1/robots/${ROBOT}%2frealtime-usage`],
      ['TRACE', `/api/voice/v1/robots/${ROBOT}/realtime-usage`],
      ['PUT', `/api/voice/v1/robots/${ROBOT}/realtime-usage`],
      ['GET', `http://elsewhere.test/api/voice/v1/robots/${ROBOT}/realtime-usage`],
    ]) expect([400, 404], `${method} ${path}`).toContain(await raw(method!, path!));
    expect(upstream.seen).toHaveLength(1);
  });
});

it('leaks the key in no response or log line of this file', async () => {
  const lines = await rec.transcript();
  expect(lines.length).toBeGreaterThan(30);
  for (const line of lines) expect(line).not.toContain(KEY);
});
