import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type * as NodeServer from '@hono/node-server';
import type { Relay } from './types.js';
import { normalizePrefix, underPrefix } from './routes.js';

/**
 * A Node request listener for `node:http`, Express (`app.use(handler)`; requests outside the
 * relay's prefix go to `next`) or Fastify (`handler(request.raw, reply.raw)`).
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void>;

/** What body parsers (express.json/raw/text, body-parser) leave on the request. */
type ParsedRequest = IncomingMessage & { body?: unknown; _body?: boolean; rawBody?: unknown; originalUrl?: string };

let listenerModule: Promise<typeof NodeServer> | undefined;
// A non-literal specifier keeps edge bundlers from resolving the Node adapter.
const loadNodeServer = () => (listenerModule ??= import(/* @vite-ignore */ ['@hono', 'node-server'].join('/')) as Promise<typeof NodeServer>);

/**
 * When a body parser ran before the relay, the request stream is already consumed: its result is
 * handed over as the raw body (re-serialised JSON, text or bytes), and when there is none the relay
 * answers 500 naming the cause instead of waiting for a body that will never come.
 */
function adoptParsedBody(req: ParsedRequest): string | undefined {
  const consumed = req._body === true || (req.readableEnded && req.method !== 'GET' && req.method !== 'HEAD');
  if (!consumed || Buffer.isBuffer(req.rawBody)) return undefined;
  const body = req.body;
  if (Buffer.isBuffer(body)) req.rawBody = body;
  else if (typeof body === 'string') req.rawBody = Buffer.from(body);
  else if (body !== undefined && body !== null && typeof body === 'object') req.rawBody = Buffer.from(JSON.stringify(body));
  else if (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined) {
    return 'another middleware read the request body before the relay and left no body the relay can use; mount the relay before body parsers (express.json() is understood)';
  }
  return undefined;
}

const bodyErrors = new WeakMap<IncomingMessage, string>();

/**
 * Adapts a relay to a Node `(req, res, next?)` listener through @hono/node-server's listener
 * (lightweight `Request` built from the `IncomingMessage`, responses streamed with backpressure,
 * the caller going away aborts `request.signal`). The raw request target is checked by the relay
 * itself (it is passed as `env.incoming`). Globals are left alone unless `overrideGlobalObjects`
 * (what `serveRelay` does: its process is the relay).
 */
export function toNodeHandler(relay: Relay, adapter: { overrideGlobalObjects?: boolean } = {}): NodeHandler {
  let listener: ((req: IncomingMessage, res: ServerResponse) => Promise<unknown>) | undefined;
  const prefix = normalizePrefix(relay.prefix);
  return async (req, res, next) => {
    const r = req as ParsedRequest;
    // Express strips a mount path from req.url; originalUrl keeps the whole target.
    const target = r.originalUrl ?? req.url ?? '';
    if (next && !underPrefix(target.split('?')[0]!, prefix)) return next();
    const bodyError = adoptParsedBody(r);
    if (bodyError !== undefined) bodyErrors.set(req, bodyError);
    listener ??= (await loadNodeServer()).getRequestListener((request, env) => {
      const error = bodyErrors.get(env.incoming as IncomingMessage);
      return relay.fetch(request, error === undefined ? env : { ...env, relayBodyError: error });
    }, {
      // Replacing the global Request/Response with @hono/node-server's lighter subclasses is for a
      // process that is the relay (serveRelay); mounted in someone else's app, globals stay theirs.
      overrideGlobalObjects: adapter.overrideGlobalObjects ?? false,
      errorHandler: () => new Response(JSON.stringify({ detail: 'Bad request target' }), { status: 400, headers: { 'content-type': 'application/json' } }),
    });
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
