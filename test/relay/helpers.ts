import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createRelay, type Relay, type RelayLogEntry, type RelayOptions } from '../../src/relay/index.js';

/** One request as the fake upstream saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => unknown;

/**
 * A loopback HTTP server standing in for the service: records every request it receives (so a test
 * can assert that a refused request never reached it) and answers with `handler`.
 */
export async function startFakeUpstream(handler: FakeHandler = defaultHandler) {
  const seen: SeenRequest[] = [];
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(r);
      Promise.resolve(current(r, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    setHandler(h: FakeHandler) {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type FakeUpstream = Awaited<ReturnType<typeof startFakeUpstream>>;

/**
 * A fake upstream for the tests of one file: started before them, closed after, and before each
 * test set back to `handler` with no request seen.
 */
export function fakeUpstreamFor(handler: FakeHandler): Pick<FakeUpstream, 'url' | 'seen' | 'setHandler'> {
  let up: FakeUpstream;
  beforeAll(async () => {
    up = await startFakeUpstream(handler);
  });
  afterAll(() => up.close());
  beforeEach(() => {
    up.setHandler(handler);
    up.seen.length = 0;
  });
  return {
    get url() {
      return up.url;
    },
    get seen() {
      return up.seen;
    },
    setHandler: (h) => up.setHandler(h),
  };
}

/** Echoes what it received as JSON: `{ method, url, headers, body }` (authorization masked). */
export const defaultHandler: FakeHandler = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  // The bearer key is not echoed: the relay would rightly withhold the answer (tests read `seen`).
  res.end(JSON.stringify({ ...req, headers: { ...req.headers, authorization: req.headers.authorization ? '(seen)' : undefined } }));
};

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/**
 * Records everything a relay emits: every response (status, headers, full body text, read from a
 * clone so streaming is untouched) and every log entry, for the key-leak scans.
 */
export function recordingRelay(options: RelayOptions) {
  const logs: RelayLogEntry[] = [];
  const outputs: Promise<string>[] = [];
  const relay = createRelay({ ...options, logger: (e) => logs.push(e) });
  const recorded: Relay = {
    prefix: relay.prefix,
    async fetch(request, env) {
      const response = await relay.fetch(request, env);
      const copy = response.clone();
      const headerText = [...copy.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
      outputs.push(copy.text().then((t) => `${copy.status}\n${headerText}\n\n${t}`, () => `${copy.status}\n${headerText}`));
      return response;
    },
  };
  return {
    relay: recorded,
    logs,
    /** All recorded responses and log lines as text. */
    async transcript(): Promise<string[]> {
      return [...(await Promise.all(outputs)), ...logs.map((l) => JSON.stringify(l))];
    },
  };
}

export const ROBOT = '6f1c1e0e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
export const KEY = 'sk-test-relay-KEY-3f9a7c1e5b';

/** An effective session as OpenAI's `client_secrets` answers it (for fake upstreams of the OpenAI-compatible routes). */
export const OAI_SESSION = {
  type: 'realtime', object: 'realtime.session', id: 'sess_1', model: ROBOT, instructions: '', output_modalities: ['audio'],
  audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: null }, output: { format: { type: 'audio/pcm', rate: 24000 }, speed: 1 } },
  max_output_tokens: 'inf', tracing: null,
};

/** One raw HTTP/1.1 GET to 127.0.0.1:`port` with the given headers, `Host` included (fetch sets its own). */
export function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
