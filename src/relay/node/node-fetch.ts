import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';
import { BodyFailed } from '../body-failed.js';
import { mergeHeaders, ReceivedReply, type HeaderList, type UpstreamClient, type UpstreamReply, type UpstreamRequest } from '../message.js';
import type { UpstreamFetch } from '../types.js';
import { toFetch } from '../web.js';

interface NodeModules {
  http: typeof Http;
  https: typeof Https;
  zlib: typeof Zlib;
  agents: Record<string, Http.Agent>;
}

let modules: Promise<NodeModules> | undefined;
let loaded: NodeModules | undefined;

/** `node:http(s)` and `node:zlib`, loaded through non-literal specifiers so edge bundles never see them. */
function load(): Promise<NodeModules> {
  return (modules ??= (async () => {
    const [h, s, z] = ['node:http', 'node:https', 'node:zlib'];
    const http = (await import(/* @vite-ignore */ h)) as typeof Http;
    const https = (await import(/* @vite-ignore */ s)) as typeof Https;
    const zlib = (await import(/* @vite-ignore */ z)) as typeof Zlib;
    return (loaded = { http, https, zlib, agents: { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) } });
  })());
}

const NULL_BODY = new Set([101, 204, 205, 304]);
/** Bodies of a declared length up to this are read whole before the answer is handed over (see `nodeUpstreamClient`). */
const SMALL_BODY_BYTES = 65_536;

/** Node's parsed response headers as a `HeaderList` (names are lower case already). */
class NodeHeaders implements HeaderList {
  constructor(private readonly h: Http.IncomingHttpHeaders) {}
  get(name: string): string | null {
    const v = this.h[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const name of Object.keys(this.h)) callback(this.get(name)!, name);
  }
}

/** A path and query URL parsing keeps as they are (the relay's, from fillPath and URLSearchParams, always are). */
const SIMPLE_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;

interface Target {
  protocol: string;
  hostname: string;
  port: string | undefined;
}

/** The last origin parsed: a relay has one upstream, so parsing it per request would be waste. */
let last: { origin: string; target: Target } | undefined;

const targetFrom = (u: URL): Target => ({ protocol: u.protocol, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: u.port || undefined });

/** An absolute URL's origin (parsed once per upstream) and its path with query, as `node:http` takes them. */
function targetOf(url: string): [Target, string] {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  const origin = slash < 0 ? url : url.slice(0, slash);
  const rest = slash < 0 ? '/' : url.slice(slash);
  // Anything URL parsing would change (dot segments, unencoded or odd characters, a fragment, credentials) takes the full parse.
  if (slash < 0 || origin.includes('@') || !SIMPLE_PATH.test(rest) || rest.includes('/.')) {
    const u = new URL(url);
    return [targetFrom(u), u.pathname + u.search];
  }
  if (last?.origin !== origin) last = { origin, target: targetFrom(new URL(origin)) };
  return [last.target, rest];
}

/**
 * The relay's upstream client in Node: `node:http`/`node:https` with keep-alive agents (a
 * fraction of the CPU of the global fetch per request). As fetch does, it decodes `gzip`, `deflate`
 * and `br` bodies (keeping the `Content-Encoding` header); the body is the response stream itself
 * (backpressure for free), except a small body of a declared length, read whole into bytes; an early
 * close is an error; `abort` destroys the connection.
 */
export const nodeUpstreamClient: UpstreamClient = (request, control) => (loaded ? call(loaded, request, control) : load().then((m) => call(m, request, control)));

/**
 * One upstream call as one promise: settled with the answer, a small body already read whole.
 * `fresh`: on a new connection of its own rather than a kept-alive one (the retry below).
 */
function call(m: NodeModules, request: UpstreamRequest, control: { abort?: () => void }, fresh = false): Promise<UpstreamReply> {
  return new Promise<UpstreamReply>((resolve, reject) => {
    const [target, path] = targetOf(request.url);
    const headers = request.body === undefined ? request.headers : mergeHeaders(request.headers, { 'content-length': String(typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.byteLength) });
    let finished = false;
    let responded = false;
    const lib = target.protocol === 'https:' ? m.https : m.http;
    const req = lib.request({ protocol: target.protocol, hostname: target.hostname, port: target.port, path, method: request.method, headers, agent: fresh ? false : m.agents[target.protocol] }, (res) => {
      responded = true;
      const status = res.statusCode ?? 502;
      const cancel = () => void (finished || res.destroy());
      const declared = res.headers['content-length'] === undefined ? -1 : Number(res.headers['content-length']);
      const coding = res.headers['content-encoding']?.trim().toLowerCase();
      const decoded = coding === 'gzip' || coding === 'x-gzip' || coding === 'deflate' || coding === 'br';
      const bodyless = NULL_BODY.has(status) || request.method === 'HEAD';
      if (!bodyless && !decoded && declared >= 0 && declared <= SMALL_BODY_BYTES) {
        // A small unencoded body of a declared length (most JSON answers) is read whole and handed
        // over as bytes with the answer: no stream machinery, one promise per call. The caller's
        // time limit still covers it (abort destroys).
        const parts: Buffer[] = [];
        const fail = (cause?: unknown) => reject(new BodyFailed(cause));
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          finished = true;
          resolve(new ReceivedReply(status, new NodeHeaders(res.headers), parts.length === 1 ? parts[0]! : Buffer.concat(parts), cancel));
        });
        res.on('error', fail);
        res.on('close', () => res.complete || fail());
        return;
      }
      res.once('end', () => (finished = true));
      if (bodyless) {
        res.resume();
        resolve(new ReceivedReply(status, new NodeHeaders(res.headers), null, cancel));
        return;
      }
      const decoder = !decoded ? null : coding === 'deflate' ? m.zlib.createInflate() : coding === 'br' ? m.zlib.createBrotliDecompress() : m.zlib.createGunzip();
      if (decoder) {
        res.on('error', (e) => decoder.destroy(e));
        res.on('close', () => !res.complete && decoder.destroy(new Error('upstream connection closed')));
        res.pipe(decoder);
      }
      resolve(new ReceivedReply(status, new NodeHeaders(res.headers), decoder ?? res, () => (decoder?.destroy(), cancel())));
    });
    let aborted = false;
    control.abort = () => void (finished || ((aborted = true), req.destroy(new Error('aborted'))));
    // Once the answer has come, a failure is the body's (its own 'error' or 'close' above).
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (responded) return;
      // A kept-alive connection the upstream closed as idle just as this request went out on it
      // (its keep-alive timeout racing our reuse): nothing was answered, so the request is sent
      // once more, on a new connection. Seen as 502 "socket hang up" / "read ECONNRESET" on a
      // loaded machine. Only then: a failure on a new connection is the upstream's answer.
      if (req.reusedSocket && !aborted && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        call(m, request, control, true).then(resolve, reject);
        return;
      }
      reject(error);
    });
    req.end(request.body);
  });
}

/**
 * The Node upstream client as a standard `fetch(url, init)` (string or byte bodies, record headers,
 * `init.signal` aborts): the relay's default in Node, exported for wrapping (e.g. to record the
 * upstream requests). A relay given this fetch uses the upstream client directly, without web objects.
 */
export function createNodeFetch(): UpstreamFetch {
  return toFetch(nodeUpstreamClient);
}

/** Whether this runtime is Node itself (not Bun, Deno or a Workers runtime with Node compatibility). */
export function isNode(): boolean {
  const g = globalThis as { process?: { release?: { name?: string } }; Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } };
  return g.process?.release?.name === 'node' && !g.Bun && !g.Deno && !(g.navigator?.userAgent ?? '').includes('Cloudflare-Workers');
}
