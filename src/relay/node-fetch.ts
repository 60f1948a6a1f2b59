import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';
import type { UpstreamFetch } from './upstream.js';

interface NodeModules {
  http: typeof Http;
  https: typeof Https;
  zlib: typeof Zlib;
  agents: Record<string, Http.Agent>;
}

let modules: Promise<NodeModules> | undefined;

/** `node:http(s)` and `node:zlib`, loaded through non-literal specifiers so edge bundles never see them. */
function load(): Promise<NodeModules> {
  return (modules ??= (async () => {
    const [h, s, z] = ['node:http', 'node:https', 'node:zlib'];
    const http = (await import(/* @vite-ignore */ h)) as typeof Http;
    const https = (await import(/* @vite-ignore */ s)) as typeof Https;
    const zlib = (await import(/* @vite-ignore */ z)) as typeof Zlib;
    return { http, https, zlib, agents: { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) } };
  })());
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** A Node readable as a web stream with backpressure; an early close is an error (the body is incomplete). */
function webStream(source: NodeJS.ReadableStream & { destroy(error?: Error): void }): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.on('end', () => {
          if (!done) controller.close();
          done = true;
        });
        source.on('error', (e: Error) => {
          if (!done) controller.error(e);
          done = true;
        });
        source.on('close', () => {
          if (!done) controller.error(new Error('upstream connection closed'));
          done = true;
        });
      },
      pull: () => void source.resume(),
      cancel() {
        done = true;
        source.destroy();
      },
    },
    { highWaterMark: 65_536, size: (c) => c.byteLength },
  );
}

/**
 * A `fetch(url, init)` for the upstream leg built on `node:http`/`node:https` with keep-alive
 * agents: in Node it costs about a third of the CPU of the global (undici) fetch per request. As
 * fetch does, it decodes `gzip`, `deflate` and `br` bodies (keeping the `Content-Encoding` header),
 * streams the body with backpressure, and aborting `init.signal` destroys the connection. Supports
 * string or byte bodies and record headers (what the relay sends). The relay's default in Node.
 */
export function createNodeFetch(): UpstreamFetch {
  return async (url, init) => {
    const m = await load();
    const target = new URL(url);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw new Error('aborted');
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
    const body = init.body as string | Uint8Array | null | undefined;
    if (body !== undefined && body !== null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    const method = init.method ?? 'GET';
    const res = await new Promise<Http.IncomingMessage>((resolve, reject) => {
      const lib = target.protocol === 'https:' ? m.https : m.http;
      const req = lib.request(
        { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || undefined, path: target.pathname + target.search, method, headers, agent: m.agents[target.protocol] },
        resolve,
      );
      const abort = () => req.destroy(new Error('aborted'));
      signal?.addEventListener('abort', abort, { once: true });
      req.once('close', () => signal?.removeEventListener('abort', abort));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
    const out = new Headers();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) out.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    const status = res.statusCode ?? 502;
    if (NULL_BODY.has(status) || method === 'HEAD') {
      res.resume();
      return new Response(null, { status, headers: out });
    }
    const coding = out.get('content-encoding')?.trim().toLowerCase();
    const decoder = coding === 'gzip' || coding === 'x-gzip' ? m.zlib.createGunzip() : coding === 'deflate' ? m.zlib.createInflate() : coding === 'br' ? m.zlib.createBrotliDecompress() : null;
    if (decoder) {
      res.on('error', (e) => decoder.destroy(e));
      res.on('close', () => !res.complete && decoder.destroy(new Error('upstream connection closed')));
      res.pipe(decoder);
    }
    return new Response(webStream(decoder ?? res), { status, headers: out });
  };
}

/** Whether this runtime is Node itself (not Bun, Deno or a Workers runtime with Node compatibility). */
export function isNode(): boolean {
  const g = globalThis as { process?: { release?: { name?: string } }; Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } };
  return g.process?.release?.name === 'node' && !g.Bun && !g.Deno && !(g.navigator?.userAgent ?? '').includes('Cloudflare-Workers');
}
