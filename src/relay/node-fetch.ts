import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { Abort, type UpstreamRequest, type UpstreamResponse, type UpstreamTransport } from './upstream.js';

type UpstreamFetch = (request: Request) => Promise<Response>;

const NULL_BODY = new Set([101, 204, 205, 304]);
const decoder = new TextDecoder();

interface NodeModules {
  http: typeof Http;
  https: typeof Https;
  agents: Record<string, Http.Agent>;
}

/** `node:http(s)` with keep-alive agents, loaded through a non-literal specifier so edge bundles never see them. */
function loader(): () => Promise<NodeModules> {
  let modules: Promise<NodeModules> | undefined;
  const load = async () => {
    const [httpSpec, httpsSpec] = ['node:http', 'node:https'];
    const http = (await import(/* @vite-ignore */ httpSpec)) as typeof Http;
    const https = (await import(/* @vite-ignore */ httpsSpec)) as typeof Https;
    const agents: Record<string, Http.Agent> = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
    return { http, https, agents };
  };
  return () => (modules ??= load());
}

/** An upstream response over a Node `IncomingMessage`; web objects are built only when asked for. */
class NodeUpstreamResponse implements UpstreamResponse {
  readonly status: number;
  readonly node: Http.IncomingMessage | undefined;

  constructor(
    readonly raw: Http.IncomingMessage,
    method: string,
  ) {
    this.status = raw.statusCode ?? 502;
    if (NULL_BODY.has(this.status) || method === 'HEAD') raw.resume();
    else this.node = raw;
  }

  header(name: string): string | null {
    // From the raw list rather than `res.headers`, which drops repeats of some names (e.g. etag).
    const raw = this.raw.rawHeaders;
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
    }
    return value;
  }

  text(): Promise<string> {
    const res = this.node;
    if (!res) return Promise.resolve('');
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let ended = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        ended = true;
        resolve(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      });
      res.on('error', reject);
      res.on('close', () => !ended && reject(new Error('upstream connection closed')));
    });
  }

  cancel(): void {
    // A complete body is drained so the keep-alive connection is reused; a partial one is cut.
    if (!this.node) return;
    if (this.raw.complete) this.raw.resume();
    else this.raw.destroy();
  }

  stream(): ReadableStream<Uint8Array> | null {
    const res = this.node;
    if (!res) return null;
    let done = false;
    return new ReadableStream<Uint8Array>(
      {
        start(controller) {
          res.on('data', (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) res.pause();
          });
          res.on('end', () => {
            done = true;
            controller.close();
          });
          res.on('error', (e) => !done && controller.error(e));
          res.on('close', () => {
            // Closed before the end (connection reset, abort): the body is incomplete.
            if (!done) controller.error(new Error('upstream connection closed'));
            done = true;
          });
        },
        pull() {
          res.resume();
        },
        cancel() {
          done = true;
          res.destroy();
        },
      },
      { highWaterMark: 65_536, size: (c) => c.byteLength },
    );
  }
}

function send(m: NodeModules, r: { method: string; url: string; headers: Record<string, string>; body?: string | Uint8Array | undefined; abort: Abort }): Promise<NodeUpstreamResponse> {
  if (r.abort.aborted) return Promise.reject(new Error('aborted'));
  const url = new URL(r.url);
  const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.byteLength) };
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? m.https : m.http;
    const req = lib.request(
      { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || undefined, path: url.pathname + url.search, method: r.method, headers, agent: m.agents[url.protocol] },
      (res) => resolve(new NodeUpstreamResponse(res, r.method)),
    );
    const off = r.abort.on(() => req.destroy(new Error('aborted')));
    req.once('close', off);
    req.on('error', reject);
    req.end(r.body);
  });
}

/**
 * The relay's default upstream transport in Node: `node:http`/`node:https` with keep-alive agents
 * and no web `Request`/`Response`/stream objects unless a caller needs one, so a passed-through body
 * goes from the upstream socket to the caller's (see `serveRelay`).
 */
export function createNodeTransport(): UpstreamTransport {
  const modules = loader();
  return async (request: UpstreamRequest) => send(await modules(), request);
}

/**
 * A fetch for the upstream leg built on `node:http`/`node:https` with keep-alive agents. In Node it
 * costs about a third of the CPU of the global (undici) fetch per request. Streams the response body
 * with backpressure; aborting the request's signal destroys the connection. Modules load lazily
 * through a non-literal specifier, so edge bundles never see them.
 */
export function createNodeFetch(): UpstreamFetch {
  const modules = loader();
  return async (request) => {
    const m = await modules();
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const abort = new Abort();
    const { signal } = request;
    if (signal.aborted) abort.abort();
    else signal.addEventListener('abort', () => abort.abort(), { once: true });
    const res = await send(m, { method: request.method, url: request.url, headers, body, abort });
    const out = new Headers();
    const raw = res.raw.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) out.append(raw[i]!, raw[i + 1]!);
    return new Response(res.stream(), { status: res.status, headers: out });
  };
}

/** Whether this runtime is Node itself (not Bun, Deno or a Workers runtime with Node compatibility). */
export function isNode(): boolean {
  const g = globalThis as { process?: { release?: { name?: string } }; Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } };
  return g.process?.release?.name === 'node' && !g.Bun && !g.Deno && !(g.navigator?.userAgent ?? '').includes('Cloudflare-Workers');
}
