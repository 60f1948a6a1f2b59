import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { canReply, PARSED_URL, REPLY } from './internal.js';
import { NodeRequest } from './node-request.js';
import { SecretScanner, toResponse, type PassThroughBody, type Reply } from './responses.js';
import type { NodeBodySource } from './upstream.js';
import type { Relay } from './types.js';

/** A request listener for `node:http`, Express (`app.use(handler)`) or Fastify (`handler(req.raw, reply.raw)`). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const JSON_ERROR_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const UPSTREAM_FAILED = JSON.stringify({ detail: 'Upstream response failed' });
/** Methods the fetch API forbids; they are on no allowlist either. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Converts a Node request to a web `Request` (lightweight, see `NodeRequest`); aborting `signal` marks the caller as gone. */
export function toWebRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const request = new NodeRequest(req);
  if (signal) {
    if (signal.aborted) request.abort();
    else signal.addEventListener('abort', () => request.abort(), { once: true });
  }
  return request as unknown as Request;
}

/** Writes a web `Response` to a Node response, streaming its body with backpressure. */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  // Event streams get their headers at once; other bodies send them with the first chunk (one
  // packet), which also leaves room to answer 502 if the body fails before its first byte.
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) res.writeHead(response.status, headers).flushHeaders();
  const reader = response.body.getReader();
  const closed = new Promise<null>((resolve) => res.once('close', () => resolve(null)));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), closed]);
      if (next === null) {
        await reader.cancel().catch(() => {});
        return;
      }
      if (!res.headersSent) res.writeHead(response.status, headers);
      if (next.done) break;
      if (!res.write(next.value)) await Promise.race([new Promise((r) => res.once('drain', r)), closed]);
    }
    res.end();
  } catch {
    // The body failed (upstream gone, secret withheld): a clean 502 if nothing was sent yet, else cut.
    if (res.headersSent) res.destroy();
    else res.writeHead(502, JSON_ERROR_HEADERS).end(UPSTREAM_FAILED);
  }
}

/**
 * Adapts a relay to a Node request listener. Mount it where the full URL path (including the relay
 * prefix) is still in `req.url`, and before any body parser (the relay reads the raw body itself).
 */
export function toNodeHandler(relay: Relay): NodeHandler {
  const replying = canReply(relay) ? relay : null;
  return async (req, res) => {
    const refuse = (status: number, detail: string) => void writeText(res, status, JSON_ERROR_HEADERS, JSON.stringify({ detail }));
    if (!req.url?.startsWith('/')) return refuse(400, 'Bad request target');
    if (FORBIDDEN_METHODS.has(req.method ?? '')) return refuse(404, 'Not found');
    const request = new NodeRequest(req);
    try {
      request[PARSED_URL]();
    } catch {
      return refuse(400, 'Bad request target');
    }
    res.once('close', () => {
      if (!res.writableFinished) request.abort();
    });
    const web = request as unknown as Request;
    // A relay from createRelay answers without web Response objects; any other fetch handler works too.
    if (replying) await writeReply(await replying[REPLY](web), res);
    else await writeWebResponse(await relay.fetch(web), res);
  };
}

function writeText(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null) {
  if (body === null) return res.writeHead(status, headers).end();
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) }).end(body);
}

/** Writes a relay `Reply`: own bodies at once, a passed-through upstream body piped socket to socket. */
async function writeReply(reply: Reply, res: ServerResponse): Promise<void> {
  const { body } = reply;
  if (body === null || typeof body === 'string') return void writeText(res, reply.status, reply.headers, body);
  const source = body.upstream.node;
  if (source) return pipeUpstream(reply, body, source, res);
  return writeWebResponse(toResponse(reply), res);
}

/**
 * Pipes an upstream Node body to the caller with backpressure, scanning each chunk for secrets.
 * Like `writeWebResponse`: event streams get their headers at once, other bodies with their first
 * bytes; chunks that arrive within one turn of the event loop go out in one write, and a body that
 * ends within it goes out with a `Content-Length` (one packet for a small JSON answer). A body that
 * fails or would reveal a secret answers 502 if nothing was sent yet, else the connection is cut.
 * The caller going away destroys the upstream request.
 */
function pipeUpstream(reply: Reply, body: PassThroughBody, source: NodeBodySource, res: ServerResponse): Promise<void> {
  const scanner = new SecretScanner(body.secrets);
  const eventStream = reply.headers['content-type']?.startsWith('text/event-stream') === true;
  if (eventStream) res.writeHead(reply.status, reply.headers).flushHeaders();
  return new Promise<void>((resolve) => {
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let scheduled = false;
    let finished = false;
    const finish = () => {
      finished = true;
      res.off('close', onCallerClose);
      resolve();
    };
    const fail = () => {
      if (finished) return;
      source.destroy();
      if (res.headersSent) res.destroy();
      else writeText(res, 502, JSON_ERROR_HEADERS, UPSTREAM_FAILED);
      finish();
    };
    const takePending = () => {
      const out = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return out;
    };
    const flush = () => {
      scheduled = false;
      if (finished || pending.length === 0) return;
      if (!res.headersSent) res.writeHead(reply.status, reply.headers);
      if (!res.write(takePending())) {
        source.pause();
        res.once('drain', () => source.resume());
      }
    };
    const onCallerClose = () => {
      if (finished) return;
      source.destroy();
      finish();
    };
    res.once('close', onCallerClose);
    source.on('data', (chunk) => {
      if (finished) return;
      if (scanner.active && scanner.leaks(chunk)) {
        body.onLeak();
        return fail();
      }
      pending.push(chunk);
      pendingBytes += chunk.byteLength;
      if (eventStream) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
    source.on('end', () => {
      if (finished) return;
      if (!res.headersSent) {
        const all = pendingBytes > 0 ? takePending() : new Uint8Array(0);
        res.writeHead(reply.status, { ...reply.headers, 'content-length': String(all.byteLength) }).end(all);
      } else res.end(pendingBytes > 0 ? takePending() : undefined);
      finish();
    });
    source.on('error', fail);
    // Closed before the end (connection reset, timeout, abort): the body is incomplete.
    source.on('close', fail);
  });
}

/** A running Node server of a relay. */
export interface RelayServer {
  /** `http://HOST:PORT` the server listens on (without the prefix). */
  url: string;
  server: Server;
  /** Stops accepting, ends open connections (including streams) and resolves when closed. */
  close(): Promise<void>;
}

/**
 * Serves a relay from `node:http` on `host` (default `127.0.0.1`) and `port` (default 8788; 0 picks
 * a free one). `node:http` is loaded lazily so that importing `kb-voice/relay` stays free of Node
 * built-ins for edge runtimes.
 */
export async function serveRelay(relay: Relay, options: { port?: number; host?: string } = {}): Promise<RelayServer> {
  // A non-literal specifier keeps edge bundlers from trying to resolve node:http.
  const specifier = 'node:http';
  const http = (await import(/* @vite-ignore */ specifier)) as typeof import('node:http');
  const host = options.host ?? '127.0.0.1';
  const handler = toNodeHandler(relay);
  const server = http.createServer((req, res) => {
    handler(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8788, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port ?? 8788;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
