import { request as httpRequest, type ServerResponse } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, deflateSync, gzipSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type Relay, type RelayLogEntry, type RelayServer } from '../../src/relay/index.js';
import { KEY, ROBOT, startFakeUpstream, type FakeUpstream } from '../relay/helpers.js';

// Issue 10, defect 3: an upstream echo of the key bypassed the relay's filter when the reply was
// compressed (passed through encoded) or the key was JSON-escaped (`sk\u002d…`, `\/`). Every form
// must be withheld (502 before the first byte, or the body cut) on every transport and adapter.

const SECRET = 'grant/secret/with/slashes';
const SECRETS = [KEY, SECRET];

/** Every way the caller could turn received bytes back into a secret. */
function reveals(bytes: Buffer): boolean {
  const texts = [bytes.toString('latin1')];
  for (const decode of [gunzipSync, inflateSync, brotliDecompressSync]) {
    try {
      texts.push(decode(bytes).toString('latin1'));
    } catch {
      // not in that encoding
    }
  }
  const unescape = (t: string) => t.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\(.)/g, '$1').replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return texts.some((t) => SECRETS.some((s) => t.includes(s) || unescape(t).includes(s)));
}

const escapeFirstDash = (s: string) => s.replace('-', '\\u002d');
const json = (inner: string) => Buffer.from(`{"echo":"${inner}"}`);

/** Upstream replies that each carry a secret in some form. */
const VARIANTS: [string, (res: ServerResponse) => void][] = [
  ['plain, one chunk', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json(KEY))],
  ['split across chunks after the first bytes', (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"pad":"${'a'.repeat(200)}","echo":"${KEY.slice(0, 9)}`);
    setTimeout(() => res.end(`${KEY.slice(9)}"}`), 30);
  }],
  ['gzip', (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(json(KEY)))],
  ['deflate', (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' }).end(deflateSync(json(KEY)))],
  ['br', (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' }).end(brotliCompressSync(json(KEY)))],
  ['an encoding the relay cannot decode', (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'compress' }).end(json(KEY))],
  ['\\u002d escape', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json(escapeFirstDash(KEY)))],
  ['every character \\u-escaped, upper-case hex', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json([...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join('')))],
  ['escape split across chunks', (res) => {
    const escaped = escapeFirstDash(KEY);
    const cut = escaped.indexOf('\\u') + 3;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"pad":"${'a'.repeat(200)}","echo":"${escaped.slice(0, cut)}`);
    setTimeout(() => res.end(`${escaped.slice(cut)}"}`), 30);
  }],
  ['\\/-escaped grant secret', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json(SECRET.replaceAll('/', '\\/')))],
  ['percent-encoded in a URL', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json(`https://x.test/?k=${encodeURIComponent(KEY).replace('-', '%2D')}`))],
  ['in an event stream', (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"n":1}\n\n');
    setTimeout(() => res.end(`data: {"k":"${escapeFirstDash(KEY)}"}\n\n`), 30);
  }],
];

let upstream: FakeUpstream;
const logs: RelayLogEntry[] = [];
const relays: Record<string, Relay> = {};
let server: RelayServer;
const usage = `/api/voice/v1/robots/${ROBOT}/realtime-usage`;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const base = { upstream: upstream.url, apiKey: KEY, secret: SECRET, logger: (e: RelayLogEntry) => logs.push(e), timeoutMs: 2000 };
  relays['node:http fetch (default)'] = createRelay(base);
  relays['global fetch'] = createRelay({ ...base, fetch: (url, init) => globalThis.fetch(url, init) });
  server = await serveRelay(relays['node:http fetch (default)']!, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});

/** Every byte a caller of the fetch handler receives (until the body errors). */
async function viaFetch(relay: Relay): Promise<{ status: number; bytes: Buffer; headers: string; complete: boolean }> {
  const res = await relay.fetch(new Request(`http://relay.test${usage}`));
  const chunks: Buffer[] = [];
  let complete = true;
  try {
    for await (const c of (res.body ?? []) as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  } catch {
    complete = false;
  }
  return { status: res.status, bytes: Buffer.concat(chunks), headers: JSON.stringify([...res.headers]), complete };
}

/** Every byte a caller of the node:http server receives on the socket's response (until it is cut). */
function viaNode(): Promise<{ status: number; bytes: Buffer; headers: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${usage}`, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const done = (complete: boolean) => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks), headers: JSON.stringify(res.rawHeaders), complete });
      res.on('end', () => done(res.complete));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the key echoed by the upstream never reaches a caller', () => {
  const adapters = () => [
    ...Object.entries(relays).map(([name, relay]) => [`fetch handler, ${name}`, () => viaFetch(relay)] as const),
    ['node:http server', viaNode] as const,
  ];

  it.each(VARIANTS.map(([name, reply]) => [name, reply] as const))('%s', async (_name, reply) => {
    upstream.setHandler((_req, res) => reply(res));
    for (const [adapter, call] of adapters()) {
      const got = await call();
      expect(reveals(got.bytes), adapter).toBe(false);
      expect(got.headers.includes(KEY), adapter).toBe(false);
      // Withheld: a 502 before the first byte, or a body that never completes.
      expect(got.status === 502 || !got.complete, `${adapter}: status ${got.status}, complete ${got.complete}`).toBe(true);
    }
  });

  it('a secret in a response header (plain or escaped) is dropped', async () => {
    upstream.setHandler((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': KEY, etag: `"${escapeFirstDash(KEY)}"`, 'content-disposition': `attachment; filename="${encodeURIComponent(KEY).replace('-', '%2D')}"` }).end('{}'));
    for (const [adapter, call] of adapters()) {
      const got = await call();
      expect(got.status, adapter).toBe(200);
      expect(reveals(Buffer.from(got.headers)), adapter).toBe(false);
    }
  });

  it('asks the upstream for an unencoded body, and logs each withheld answer', async () => {
    upstream.seen.length = 0;
    upstream.setHandler((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json(KEY)));
    await viaNode();
    expect(upstream.seen[0]!.headers['accept-encoding']).toBe('identity');
    expect(logs.some((l) => l.level === 'error' && /secret/.test(l.message))).toBe(true);
    for (const l of logs) expect(reveals(Buffer.from(JSON.stringify(l)))).toBe(false);
  });

  it('the scoped (read and parsed) path refuses an escaped echo too', async () => {
    const relay = createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: () => ({ userIdentifier: 'u', role: 'user' }), logger: () => {} });
    upstream.setHandler((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"bot_id":"${escapeFirstDash(KEY)}","session_count":0,"sessions":[]}`));
    const res = await relay.fetch(new Request(`http://relay.test${usage}`));
    expect(res.status).toBe(502);
    expect(reveals(Buffer.from(await res.text()))).toBe(false);
  });
});
