/**
 * The compatibility suite's fake upstream: a node:http server on 127.0.0.1 (ephemeral port) that
 * answers every endpoint as the emulator does (test/helpers/samples.ts) unless a test queues a
 * different answer, so each test differs from the emulator in one way. Answers are raw handlers:
 * they may stall, trickle, cut the connection or send any header.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/index.js';
import { endpoints } from '../../src/schemas/index.js';
import { responses } from '../helpers/samples.js';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Answer = (res: ServerResponse, req: Seen) => void;

/** A JSON answer (the emulator's form, or any other body and headers). */
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Answer => (res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** A body answer of any type, sent whole. */
export const raw = (body: string, status = 200, headers: Record<string, string> = {}): Answer => (res) => {
  res.writeHead(status, headers);
  res.end(body);
};

/** Headers sent, then `sent` of the body, then nothing (the connection stays open). */
export const stall = (sent = '{"bot_id":', total = 400, type = 'application/json'): Answer => (res) => {
  res.writeHead(200, { 'content-type': type, 'content-length': String(total) });
  res.write(sent);
};

/** The body sent one byte every `everyMs` (each piece in time, the whole far beyond any budget). */
export const trickle = (body: string, everyMs = 40): Answer => (res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= body.length) return clearInterval(timer);
    res.write(body[i++]!);
  }, everyMs);
  res.on('close', () => clearInterval(timer));
};

/** Headers and part of the body, then the connection is cut. */
export const cut = (sent = '{"bot_id":"x","sess'): Answer => (res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
  res.write(sent, () => setTimeout(() => res.socket?.destroy(), 20));
};

/** The emulator's answer of the endpoint a request is for (its sample, with its status). */
function emulatorAnswer(req: Seen): Answer {
  for (const [id, ep] of Object.entries(endpoints)) {
    const re = new RegExp(`^${ep.path.replace(/\{\w+\}/g, '[^/]*')}$`);
    if (ep.method === req.method && re.test(req.path)) {
      if (ep.status === 204) return raw('', 204);
      return json(responses[id as keyof typeof responses], ep.status, id === 'RS' ? { location: `${req.path}/${responses.RS.session_id}` } : {});
    }
  }
  return json({ detail: 'Not Found' }, 404);
}

export interface Upstream {
  url: string;
  /** Every request received, in order. */
  seen: Seen[];
  /** The next requests get these answers, in order (then the emulator's). */
  next(...answers: Answer[]): void;
  /** The next requests matching `path` get this answer (any number of times). */
  on(match: (req: Seen) => boolean, answer: Answer): void;
  /** Closes the server and every connection to it (a stalled answer's too). */
  close(): Promise<void>;
}

/**
 * A test's fake upstream: a server of its own for each test (`ready` gets it before the test, and an
 * API client on it made with `client`: `path` appended to its URL, no retries and a 5 s budget
 * unless given), closed after it with every connection. One server per test, not one reset between
 * tests: a request a test left in flight (written by its client, not yet read by a busy server)
 * would otherwise reach the next test, take its queued answer and count in its `seen`; on a new
 * port it cannot, and no keep-alive connection is shared either. The one setup of every D-file
 * (compat tests).
 */
export function useUpstream(client: { path?: string } & Partial<ApiClientOptions>, ready: (up: Upstream, api: ApiClient) => void): void {
  let up: Upstream | undefined;
  beforeEach(async () => {
    up = await startUpstream();
    const { path = '', ...options } = client;
    ready(up, createApiClient({ retry: 0, timeout: 5_000, ...options, baseUrl: `${up.url}${path}` }));
  });
  afterEach(async () => {
    await up?.close();
    up = undefined;
  });
}

export async function startUpstream(): Promise<Upstream> {
  const seen: Seen[] = [];
  const queue: Answer[] = [];
  const routes: [(req: Seen) => boolean, Answer][] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const request: Seen = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString() };
    seen.push(request);
    const routed = routes.find(([match]) => match(request))?.[1];
    (queue.shift() ?? routed ?? emulatorAnswer(request))(res, request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    next: (...answers) => queue.push(...answers),
    on: (match, answer) => routes.push([match, answer]),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
