import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Relay } from './types.js';

/** A request listener for `node:http`, Express (`app.use(handler)`) or Fastify (`handler(req.raw, reply.raw)`). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const HOST_HEADER = /^[A-Za-z0-9.\-:[\]]{1,255}$/;
const BODYLESS = new Set(['GET', 'HEAD']);

/** The request body as a web stream, with backpressure (the socket pauses while the stream is full). */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (cancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.on('end', () => !cancelled && controller.close());
        req.on('error', (e) => !cancelled && controller.error(e));
      },
      pull() {
        req.resume();
      },
      cancel() {
        // The relay refused the body (e.g. too large): discard the rest instead of holding it.
        cancelled = true;
        req.resume();
      },
    },
    { highWaterMark: 65_536, size: (chunk) => chunk.byteLength },
  );
}

/** Converts a Node request to a web `Request`; aborting `signal` marks the caller as gone. */
export function toWebRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const hostHeader = req.headers.host ?? '';
  const host = HOST_HEADER.test(hostHeader) ? hostHeader : 'localhost';
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  // Concatenated rather than resolved against a base, so `//x/y` stays a path (and fails the allowlist).
  const url = `${encrypted ? 'https' : 'http'}://${host}${req.url ?? '/'}`;
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (!name.startsWith(':')) headers.append(name, req.rawHeaders[i + 1]!);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (!BODYLESS.has(method)) {
    init.body = bodyStream(req);
    init.duplex = 'half';
  }
  return new Request(url, init);
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
    else res.writeHead(502, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ detail: 'Upstream response failed' }));
  }
}

/**
 * Adapts a relay to a Node request listener. Mount it where the full URL path (including the relay
 * prefix) is still in `req.url`, and before any body parser (the relay reads the raw body itself).
 */
export function toNodeHandler(relay: Relay): NodeHandler {
  return async (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const refuse = (status: number, detail: string) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ detail }));
    if (!req.url?.startsWith('/')) return void refuse(400, 'Bad request target');
    let request: Request;
    try {
      request = toWebRequest(req, controller.signal);
    } catch {
      // Methods the fetch API forbids (TRACE, CONNECT) are on no allowlist either.
      return void refuse(404, 'Not found');
    }
    await writeWebResponse(await relay.fetch(request), res);
  };
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
