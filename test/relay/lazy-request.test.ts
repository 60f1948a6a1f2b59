import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRelay, serveRelay, type RelayCaller } from '../../src/relay/index.js';
import { hookRequest } from '../../src/relay/node/lazy-request.js';
import { defaultHandler, KEY, ROBOT, startFakeUpstream, type FakeUpstream } from './helpers.js';

// The Request the Node adapter hands to hooks is built for real only when a hook uses more than its
// method, URL and headers (an AbortSignal per `new Request` cost the relay ~35 µs of CPU per request
// under load in Node 20: docs/relay.md "What a request costs"). It must still be a Request to
// everything a hook may do with it.

const headersOf = (pairs: [string, string][]) => {
  const h = new Headers();
  for (const [k, v] of pairs) h.append(k, v);
  return h;
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('hookRequest', () => {
  it('reads like a Request: instanceof, url serialised as Request does, method, headers', () => {
    const req = hookRequest('http://relay.test:80/api/voice/a/../v1/x?y=1', 'GET', headersOf([['Cookie', 'sid=1'], ['X-Two', 'a'], ['X-Two', 'b']]));
    expect(req).toBeInstanceOf(Request);
    expect(req.constructor).toBe(Request);
    expect(Object.prototype.toString.call(req)).toBe('[object Request]');
    expect(req.url).toBe(new Request('http://relay.test:80/api/voice/a/../v1/x?y=1').url);
    expect(req.url).toBe('http://relay.test/api/voice/v1/x?y=1');
    expect(req.method).toBe('GET');
    expect(req.headers.get('cookie')).toBe('sid=1');
    expect(req.headers.get('x-two')).toBe('a, b');
  });

  it('makes no AbortSignal for a hook that reads headers only (a real Request makes one at construction)', () => {
    const signals = vi.spyOn(AbortController.prototype, 'signal', 'get');
    const req = hookRequest('http://relay.test/x', 'GET', headersOf([['cookie', 'sid=1']]));
    expect(req.headers.get('cookie')).toBe('sid=1');
    expect(req.url).toBe('http://relay.test/x');
    expect(signals).not.toHaveBeenCalled();
    // Anything else builds the real one, once.
    expect(req.signal).toBeInstanceOf(AbortSignal);
    expect(req.signal.aborted).toBe(false);
    expect(req.mode).toBe('cors');
    expect(signals).toHaveBeenCalledTimes(1);
  });

  it('is copied by new Request(req) and cloned with its headers, including ones a hook set before', async () => {
    const req = hookRequest('http://relay.test/x?q=1', 'POST', headersOf([['authorization', 'Bearer app-token']]));
    req.headers.set('x-added', 'yes');
    const copy = new Request(req);
    expect(copy.url).toBe('http://relay.test/x?q=1');
    expect(copy.method).toBe('POST');
    expect(copy.headers.get('authorization')).toBe('Bearer app-token');
    expect(copy.headers.get('x-added')).toBe('yes');
    const clone = req.clone();
    expect(clone).toBeInstanceOf(Request);
    expect(clone.headers.get('x-added')).toBe('yes');
    expect(await req.text()).toBe('');
    expect(req.bodyUsed).toBe(false);
    // Once built, the real request's headers are the ones shown.
    expect(req.headers.get('x-added')).toBe('yes');
  });

  it('is a real Request where a stand-in would not pass for one (a Request keeping private state, as newer undici may)', async () => {
    class PrivateRequest {
      #url: string;
      #headers: Headers;
      constructor(input: string | PrivateRequest, init: { headers?: Headers } = {}) {
        if (typeof input !== 'string' && !(#url in input)) throw new TypeError('not a Request');
        this.#url = typeof input === 'string' ? input : input.#url;
        this.#headers = new Headers(init.headers);
      }
      get url() {
        return this.#url;
      }
      get headers() {
        return this.#headers;
      }
      clone() {
        return new PrivateRequest(this);
      }
    }
    vi.stubGlobal('Request', PrivateRequest);
    vi.resetModules();
    const fresh = await import('../../src/relay/node/lazy-request.js');
    const req = fresh.hookRequest('http://relay.test/x', 'GET', headersOf([['cookie', 'sid=1']]));
    expect(Object.getPrototypeOf(req)).toBe(PrivateRequest.prototype);
    expect(req.headers.get('cookie')).toBe('sid=1');
  });

  describe('fetch(req) sends it as it is', () => {
    let server: Server;
    const seen: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        seen.push({ method: req.method, url: req.url, headers: req.headers });
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('to a real server', async () => {
      const { port } = server.address() as AddressInfo;
      const req = hookRequest(`http://127.0.0.1:${port}/auth/check?u=1`, 'GET', headersOf([['x-app-session', 'abc']]));
      const res = await fetch(req);
      expect(await res.text()).toBe('ok');
      expect(seen).toEqual([expect.objectContaining({ method: 'GET', url: '/auth/check?u=1', headers: expect.objectContaining({ 'x-app-session': 'abc' }) })]);
    });
  });
});

describe('the authorize hook of a served relay', () => {
  let upstream: FakeUpstream;
  let relayServer: Awaited<ReturnType<typeof serveRelay>>;
  const saw: unknown[] = [];
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    upstream.setHandler(defaultHandler);
    const relay = createRelay({
      upstream: upstream.url,
      apiKey: KEY,
      robots: '*',
      secret: 'lazy-request-secret',
      authorize: async (req): Promise<RelayCaller | null> => {
        // What an app may do with it: copy it for its auth service, read its URL and signal.
        const copy = new Request(req, { headers: { authorization: req.headers.get('x-app-session') ?? '' } });
        saw.push({ url: req.url, method: req.method, copied: copy.headers.get('authorization'), signal: req.signal instanceof AbortSignal });
        return copy.headers.get('authorization') === 'admin' ? { userIdentifier: 'qa', role: 'admin' } : null;
      },
    });
    relayServer = await serveRelay(relay, { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await relayServer.close();
    await upstream.close();
  });

  it('gets a request it can copy and read, and the relay answers by its decision', async () => {
    const path = `/api/voice/v1/robots/${ROBOT}/realtime-usage`;
    const ok = await fetch(relayServer.url + path, { headers: { 'x-app-session': 'admin' } });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const no = await fetch(relayServer.url + path, { headers: { 'x-app-session': 'nobody' } });
    expect(no.status).toBe(401);
    await no.arrayBuffer();
    expect(saw).toEqual([
      { url: relayServer.url + path, method: 'GET', copied: 'admin', signal: true },
      { url: relayServer.url + path, method: 'GET', copied: 'nobody', signal: true },
    ]);
  });
});
