import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { jsonReply } from '../errors.js';
import { RELAY_HANDLER, type Body, type Incoming, type RelayHandler, type Reply } from '../message.js';
import { NodeIncoming, type ParsedRequest } from './incoming.js';
import { normalizePrefix, underPrefix } from '../router.js';
import type { Relay } from '../types.js';
import { iterate, toStream } from '../web.js';

/**
 * A Node request listener for `node:http`, Express (`app.use(handler)`; requests outside the
 * relay's prefix go to `next`) or Fastify (`handler(request.raw, reply.raw)`).
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void>;

/**
 * Writes the relay's reply: bytes with their length (at once: no promise), a stream with
 * backpressure (a failing stream cuts the response).
 */
function send(res: ServerResponse, reply: Reply): Promise<void> | undefined {
  const { body } = reply;
  if (body === null || body instanceof Uint8Array) {
    // The reply's headers are its own (built per request): the length is added in place.
    if (body) reply.headers['content-length'] = String(body.byteLength);
    res.writeHead(reply.status, reply.headers);
    res.end(body ?? undefined);
    return undefined;
  }
  return stream(res, reply.status, reply.headers, body);
}

/** {@link send}, then lets go of the request's socket listeners (at once for bytes, when a stream has ended or failed). */
function sendThen(res: ServerResponse, reply: Reply, incoming: NodeIncoming): Promise<void> | undefined {
  const streaming = send(res, reply);
  if (streaming) return streaming.finally(() => incoming.settled());
  incoming.settled();
  return undefined;
}

/** Resolves on the response's next 'drain' or its 'close', whichever comes first, leaving no listener behind. */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

async function stream(res: ServerResponse, status: number, headers: Record<string, string>, body: Body): Promise<void> {
  res.writeHead(status, headers);
  try {
    for await (const chunk of body) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await writable(res);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/** The default of {@link NodeHandlerOptions.maxDrainBytes}: 16 MiB. */
export const DEFAULT_MAX_DRAIN_BYTES = 16 * 1024 * 1024;

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /**
   * When the relay answers before it has read a request's body (413 for an oversized upload, 404,
   * 401…), it first reads and discards up to this many more bytes of it, so that a client still
   * sending gets the answer instead of a reset (`EPIPE`, "Failed to fetch"). A body longer than
   * that (declared or seen) is not waited for: the answer goes out with `Connection: close`.
   * Default {@link DEFAULT_MAX_DRAIN_BYTES}; the server's `requestTimeoutMs` bounds the time.
   */
  maxDrainBytes?: number;
}

/**
 * Reads and discards the rest of a request body, up to `limit` bytes; resolves true once the whole
 * body has been read, false when it is longer than that (or the request failed).
 */
function drain(req: IncomingMessage, limit: number): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  if (req.destroyed || Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (whole: boolean) => {
      req.off('data', count).off('end', ended).off('close', closed).off('error', failed);
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > limit) finish(false);
    };
    const ended = () => finish(true);
    const closed = () => finish(req.complete);
    const failed = () => finish(false);
    req.on('data', count).once('end', ended).once('close', closed).once('error', failed);
    // After the body iterator the relay stopped has let go of the stream (its return is not awaited
    // by the reader), or a 'readable' listener would keep the stream paused.
    setImmediate(() => req.resume());
  });
}

/** A web `Request` of a Node request, body included (for relays that are only a `fetch`). */
function toWebRequest(incoming: Incoming, req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const { body } = incoming;
  const hasBody = typeof body === 'object' && body !== null && incoming.method !== 'GET' && incoming.method !== 'HEAD';
  return new Request(`${incoming.origin || 'http://localhost'}${incoming.target}`, {
    method: incoming.method,
    headers,
    ...(hasBody ? { body: toStream(body, 0), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The handler of any relay: `createRelay`'s own (no web objects on the way), or, for a relay that
 * is only a `{ fetch }` (a wrapper of one, say), its `fetch` with a web `Request` built here and the
 * raw request target and any body error passed as `env`, as `fromRequest` reads them.
 */
function handlerOf(relay: Relay): (incoming: Incoming, req: IncomingMessage) => Promise<Reply> {
  const own = (relay as { [RELAY_HANDLER]?: RelayHandler })[RELAY_HANDLER];
  if (own) return own;
  return async (incoming, req) => {
    const env = { incoming: { url: incoming.target }, ...(typeof incoming.body === 'string' ? { relayBodyError: incoming.body } : {}) };
    let request: Request;
    try {
      request = toWebRequest(incoming, req);
    } catch {
      // Not a request the fetch API can represent (TRACE, CONNECT, a target that is no URL): on no allowlist.
      return jsonReply(404, { detail: 'Not found' });
    }
    const response = await relay.fetch(request, env);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    return { status: response.status, headers, body: response.body && iterate(response.body) };
  };
}

/**
 * Adapts a relay to a Node `(req, res, next?)` listener on `node:http` alone: the request goes to
 * the relay as it is (no web `Request`/`Response` for a `createRelay` relay; the caller going away
 * aborts the upstream call), the reply is written with its length or streamed with backpressure.
 * With `next` (Express), requests outside the relay's prefix go to `next`. A body the relay did not
 * read is drained (bounded, see `maxDrainBytes`) before the answer.
 */
export function toNodeHandler(relay: Relay, options: NodeHandlerOptions = {}): NodeHandler {
  const handle = handlerOf(relay);
  const prefix = normalizePrefix(relay.prefix);
  const maxDrainBytes = options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES;
  if (!Number.isFinite(maxDrainBytes) || maxDrainBytes < 0) throw new TypeError('toNodeHandler option maxDrainBytes must be a number >= 0');
  // Not an async function: a request whose body was read (or had none) is answered in the turn its reply is ready.
  return (req, res, next) => {
    const r = req as ParsedRequest;
    // Express strips a mount path from req.url; originalUrl keeps the whole target.
    const target = r.originalUrl ?? req.url ?? '';
    if (next && !underPrefix(target.split('?')[0]!, prefix)) return Promise.resolve(next());
    let incoming: NodeIncoming;
    try {
      incoming = new NodeIncoming(r, res, target);
    } catch (error) {
      // As from an async function: a request that cannot be read (a body parser's circular result) is a rejection.
      return Promise.reject(error);
    }
    return handle(incoming, req).then((reply) => {
      // A request without a body has nothing to drain (and `req.complete` is one more read of Express's `req`).
      if (incoming.body === null || req.complete) return sendThen(res, reply, incoming);
      return drain(req, maxDrainBytes).then((whole) => {
        if (!whole) reply.headers.connection = 'close';
        return sendThen(res, reply, incoming);
      });
    }, (error: unknown) => {
      incoming.settled();
      throw error;
    });
  };
}

/** Time limits of the `node:http` server of {@link serveRelay}, in ms. */
export interface RelayServerLimits {
  /** Time to receive a request's headers; a slower client's socket is closed (408). Default 10000. */
  headersTimeoutMs?: number;
  /** Time to receive a whole request (headers and body); does not limit the response (streams). Default 30000. */
  requestTimeoutMs?: number;
  /** Idle time before an unused keep-alive connection is closed. Default 5000. */
  keepAliveTimeoutMs?: number;
}

export const SERVER_LIMIT_DEFAULTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 } as const;

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
 * a free one), with explicit time limits (see {@link RelayServerLimits}). `node:http` is loaded
 * lazily so that importing `kb-voice/relay` stays free of Node built-ins for edge runtimes.
 */
export async function serveRelay(relay: Relay, options: { port?: number; host?: string } & RelayServerLimits & NodeHandlerOptions = {}): Promise<RelayServer> {
  const specifier = 'node:http';
  const http = (await import(/* @vite-ignore */ specifier)) as typeof import('node:http');
  const limits = { ...SERVER_LIMIT_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([k, v]) => k in SERVER_LIMIT_DEFAULTS && v !== undefined)) };
  for (const [name, value] of Object.entries(limits)) if (!Number.isFinite(value) || value <= 0) throw new TypeError(`serveRelay option ${name} must be a positive number`);
  const host = options.host ?? '127.0.0.1';
  const handler = toNodeHandler(relay, options.maxDrainBytes !== undefined ? { maxDrainBytes: options.maxDrainBytes } : {});
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the two limits above (its default, 30 s, would let them overrun that much).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs / 2),
    },
    (req, res) => void handler(req, res).catch(() => res.destroy()),
  );
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
