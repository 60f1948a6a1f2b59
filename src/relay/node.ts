import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type * as NodeServer from '@hono/node-server';
import type { Body, Incoming, Reply } from './message.js';
import { pipelineOf } from './relay.js';
import type { Relay } from './types.js';
import { normalizePrefix, underPrefix } from './routes.js';

/**
 * A Node request listener for `node:http`, Express (`app.use(handler)`; requests outside the
 * relay's prefix go to `next`) or Fastify (`handler(request.raw, reply.raw)`).
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void>;

/** What body parsers (express.json/raw/text, body-parser) leave on the request. */
type ParsedRequest = IncomingMessage & { body?: unknown; _body?: boolean; rawBody?: unknown; originalUrl?: string };

/**
 * When a body parser ran before the relay, the request stream is already consumed: its result is
 * the body (re-serialised JSON, text or bytes), and when there is none the relay answers 500 naming
 * the cause instead of waiting for a body that will never come. Undefined: the stream is unread.
 */
function parsedBody(req: ParsedRequest): Buffer | string | undefined {
  const consumed = req._body === true || (req.readableEnded && req.method !== 'GET' && req.method !== 'HEAD');
  if (!consumed) return undefined;
  const body = req.body;
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  if (body !== undefined && body !== null && typeof body === 'object') return Buffer.from(JSON.stringify(body));
  if (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined) {
    return 'another middleware read the request body before the relay and left no body the relay can use; mount the relay before body parsers (express.json() is understood)';
  }
  return undefined;
}

/** The request stream as the relay's body; stopping early leaves the socket alone (the reply says `Connection: close`). */
async function* bodyOf(req: IncomingMessage): Body {
  const iterator = req.iterator({ destroyOnReturn: false });
  let done = false;
  try {
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) yield r.value as Buffer;
    done = true;
  } finally {
    if (!done) req.resume();
  }
}

async function* once(bytes: Uint8Array): Body {
  yield bytes;
}

const SIMPLE_HOST = /^[a-z0-9.-]+(?::\d{1,5})?$/;

/** The relay's own origin as the request names it (its `Host`), as `URL.origin` would spell it; '' when unusable. */
function originOf(req: IncomingMessage): string {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const host = req.headers.host ?? '';
  if (SIMPLE_HOST.test(host)) return `${scheme}://${host.replace(scheme === 'http' ? /:80$/ : /:443$/, '')}`;
  try {
    return host ? new URL(`${scheme}://${host}`).origin : '';
  } catch {
    return '';
  }
}

/** A Node request as the relay's request (no web object unless a hook asks for one). */
function fromNode(req: ParsedRequest, res: ServerResponse): Incoming {
  const parsed = parsedBody(req);
  const origin = originOf(req);
  const target = req.originalUrl ?? req.url ?? '';
  let request: Request | undefined;
  return {
    method: req.method ?? 'GET',
    target,
    origin,
    header(name) {
      const v = req.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
    body: typeof parsed === 'string' ? parsed : parsed ? once(parsed) : bodyOf(req),
    onClose(listener) {
      const f = () => res.writableFinished || listener();
      res.once('close', f);
      return () => res.off('close', f);
    },
    request() {
      if (request) return request;
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      return (request = new Request(`${origin || 'http://localhost'}${target}`, { method: req.method ?? 'GET', headers }));
    },
  };
}

/** Writes the relay's reply: bytes with their length, a stream with backpressure (a failing stream cuts the response). */
async function send(res: ServerResponse, reply: Reply): Promise<void> {
  const { body } = reply;
  if (body === null || body instanceof Uint8Array) {
    res.writeHead(reply.status, body ? { ...reply.headers, 'content-length': String(body.byteLength) } : reply.headers);
    res.end(body ?? undefined);
    return;
  }
  res.writeHead(reply.status, reply.headers);
  try {
    for await (const chunk of body) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await new Promise((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

let listenerModule: Promise<typeof NodeServer> | undefined;
// A non-literal specifier keeps edge bundlers from resolving the Node adapter.
const loadNodeServer = () => (listenerModule ??= import(/* @vite-ignore */ ['@hono', 'node-server'].join('/')) as Promise<typeof NodeServer>);

/**
 * A web fetch handler wrapping a relay (anything but `createRelay`'s own object) behind
 * @hono/node-server's listener; the raw request target and a body error reach the relay as `env`.
 */
async function webListener(relay: Relay, overrideGlobalObjects: boolean) {
  return (await loadNodeServer()).getRequestListener((request, env) => {
    const error = bodyErrors.get(env.incoming as IncomingMessage);
    return relay.fetch(request, error === undefined ? env : { ...env, relayBodyError: error });
  }, {
    overrideGlobalObjects,
    errorHandler: () => new Response(JSON.stringify({ detail: 'Bad request target' }), { status: 400, headers: { 'content-type': 'application/json' } }),
  });
}
const bodyErrors = new WeakMap<IncomingMessage, string>();

/**
 * Adapts a relay to a Node `(req, res, next?)` listener. A `createRelay` relay is served straight
 * from `IncomingMessage` to `ServerResponse` (no web `Request`/`Response`; the caller going away
 * aborts the upstream call); a wrapped one (any other `{ fetch }`) through @hono/node-server's
 * listener. Globals are left alone unless `overrideGlobalObjects` (what `serveRelay` does).
 */
export function toNodeHandler(relay: Relay, adapter: { overrideGlobalObjects?: boolean } = {}): NodeHandler {
  const pipeline = pipelineOf(relay);
  let listener: ((req: IncomingMessage, res: ServerResponse) => Promise<unknown>) | undefined;
  const prefix = normalizePrefix(relay.prefix);
  return async (req, res, next) => {
    const r = req as ParsedRequest;
    // Express strips a mount path from req.url; originalUrl keeps the whole target.
    const target = r.originalUrl ?? req.url ?? '';
    if (next && !underPrefix(target.split('?')[0]!, prefix)) return next();
    if (pipeline) return send(res, await pipeline(fromNode(r, res)));
    const parsed = parsedBody(r);
    if (typeof parsed === 'string') bodyErrors.set(req, parsed);
    else if (parsed) r.rawBody = parsed;
    listener ??= await webListener(relay, adapter.overrideGlobalObjects ?? false);
    if (r.originalUrl !== undefined) req.url = r.originalUrl;
    await listener(req, res);
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
export async function serveRelay(relay: Relay, options: { port?: number; host?: string } & RelayServerLimits = {}): Promise<RelayServer> {
  const specifier = 'node:http';
  const http = (await import(/* @vite-ignore */ specifier)) as typeof import('node:http');
  const limits = { ...SERVER_LIMIT_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([k, v]) => k in SERVER_LIMIT_DEFAULTS && v !== undefined)) };
  for (const [name, value] of Object.entries(limits)) if (!Number.isFinite(value) || value <= 0) throw new TypeError(`serveRelay option ${name} must be a positive number`);
  const host = options.host ?? '127.0.0.1';
  const handler = toNodeHandler(relay, { overrideGlobalObjects: true });
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
