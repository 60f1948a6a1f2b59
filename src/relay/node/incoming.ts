import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Body, Incoming } from '../message.js';
import { hookRequest } from './lazy-request.js';

/** What body parsers (express.json/raw/text, body-parser) leave on the request. */
export type ParsedRequest = IncomingMessage & { body?: unknown; _body?: boolean; rawBody?: unknown; originalUrl?: string };

/**
 * What a body parser that ran before the relay left (the request stream is consumed then): its
 * result as bytes (re-serialised JSON, text or bytes), or, when there is none, why (the relay
 * answers 500 naming the cause instead of waiting for a body that will never come).
 */
function parsedBody(req: ParsedRequest, headers: IncomingHttpHeaders): Buffer | string | undefined {
  const body = req.body;
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  if (body !== undefined && body !== null && typeof body === 'object') return Buffer.from(JSON.stringify(body));
  if (Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined) {
    return 'another middleware read the request body before the relay and left no body the relay can use; mount the relay before body parsers (express.json() is understood)';
  }
  return undefined;
}

/**
 * The request stream as the relay's body. Stopping early leaves the socket and the rest of the body
 * alone (the iterator's listeners removed, nothing destroyed): `toNodeHandler` drains it before
 * answering.
 */
async function* streamOf(req: IncomingMessage): Body {
  const iterator = req.iterator({ destroyOnReturn: false });
  let done = false;
  try {
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) yield r.value as Buffer;
    done = true;
  } finally {
    if (!done) await iterator.return?.();
  }
}

async function* once(bytes: Uint8Array): Body {
  yield bytes;
}

/**
 * The body of a request as the relay takes it: null when the request has none (no `Content-Length`,
 * no `Transfer-Encoding`: nothing to read or drain), a body parser's result when one ran, else the
 * stream itself.
 */
function bodyOf(req: ParsedRequest, headers: IncomingHttpHeaders, method: string): Body | null | string {
  const consumed = req._body === true;
  if (!consumed && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) return null;
  if (!consumed && !(req.readableEnded && method !== 'GET' && method !== 'HEAD')) return streamOf(req);
  const parsed = parsedBody(req, headers);
  return typeof parsed === 'string' ? parsed : parsed ? once(parsed) : streamOf(req);
}

const SIMPLE_HOST = /^[a-z0-9.-]+(?::\d{1,5})?$/;

/** The relay's own origin as the request names it (its `Host`), as `URL.origin` would spell it; '' when unusable. */
function originOf(encrypted: boolean, host: string): string {
  const scheme = encrypted ? 'https' : 'http';
  if (SIMPLE_HOST.test(host)) return `${scheme}://${host.replace(scheme === 'http' ? /:80$/ : /:443$/, '')}`;
  try {
    return host ? new URL(`${scheme}://${host}`).origin : '';
  } catch {
    return '';
  }
}

type Listener = () => void;

/** Each connection's listeners for its closing, by socket (see {@link watchersOf}). */
const watched = new WeakMap<Socket, Set<Listener>>();

/**
 * The listeners told when `socket` closes: one 'close' listener per connection, added with its
 * first request, rather than one added and removed per request. A keep-alive connection carries
 * many requests, and adding and removing a listener on a socket per request cost the relay about
 * 6 % of its CPU per request in Express (docs/relay.md "What a request costs").
 */
function watchersOf(socket: Socket): Set<Listener> {
  let watchers = watched.get(socket);
  if (!watchers) {
    const set = (watchers = new Set());
    watched.set(socket, set);
    socket.once('close', () => {
      for (const f of set) f();
      set.clear();
    });
  }
  return watchers;
}

/**
 * A Node request as the relay's request (no web object unless a hook asks for one). A class, so a
 * request costs one object rather than one closure per member; its origin is worked out only when
 * asked (a request with an `Origin` header, a hook).
 *
 * It reads each member of Node's `req` and `res` once, and learns of the caller going away from the
 * socket rather than from `res`: Express gives every request's `req` and `res` a hidden class of
 * their own (`Object.setPrototypeOf` per request), so every property read on them, and every
 * listener added to them, misses V8's inline caches. Reading `req.headers` per header and a `res`
 * 'close' listener cost the relay in Express about a quarter of its CPU beyond the same job done by
 * hand (bench 3's Express row, docs/relay.md "What a request costs").
 */
export class NodeIncoming implements Incoming {
  readonly method: string;
  readonly body: Body | null | string;
  private readonly headers: IncomingHttpHeaders;
  private own: string | undefined;
  private web: Request | undefined;
  /** The connection (read once, when first needed); null for a stand-in request without one. */
  private socket: Socket | null | undefined;
  /** This request's listeners for the caller going away, in its socket's {@link watchersOf} (`watchers`) until `settled()` at the latest. */
  private closers: Listener[] | undefined;
  private watchers: Set<Listener> | undefined;

  constructor(
    private readonly req: ParsedRequest,
    private readonly res: ServerResponse,
    readonly target: string,
  ) {
    const headers = (this.headers = req.headers);
    const method = (this.method = req.method ?? 'GET');
    this.body = bodyOf(req, headers, method);
  }

  get origin(): string {
    const socket = (this.socket ??= this.req.socket ?? null);
    return (this.own ??= originOf((socket as { encrypted?: boolean } | null)?.encrypted === true, this.headers.host ?? ''));
  }

  header(name: string): string | null {
    const v = this.headers[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }

  onClose(listener: Listener): () => void {
    const socket = (this.socket ??= this.req.socket ?? null);
    if (typeof socket?.on !== 'function') return this.onResponseClose(listener);
    // The socket closing before `settled()` is the caller going away: the reply is not written yet.
    const watchers = (this.watchers ??= watchersOf(socket));
    // A function of this subscription's own: the same listener subscribed twice is two entries of the set.
    const f = () => listener();
    watchers.add(f);
    const closers = (this.closers ??= []);
    closers.push(f);
    return () => {
      watchers.delete(f);
      const at = closers.indexOf(f);
      if (at >= 0) closers.splice(at, 1);
    };
  }

  /** Without a socket to watch (a stand-in request): the response's 'close' before it finished. */
  private onResponseClose(listener: Listener): () => void {
    const res = this.res;
    const f = () => {
      res.off('close', f);
      if (!res.writableFinished) listener();
    };
    res.on('close', f);
    return () => res.off('close', f);
  }

  /** The reply is written (or given up): the socket may carry the next request, so its listeners go. */
  settled(): void {
    const { closers, watchers } = this;
    if (!closers?.length || !watchers) return;
    for (const f of closers.splice(0)) watchers.delete(f);
  }

  request(): Request {
    if (this.web) return this.web;
    const raw = this.req.rawHeaders;
    const headers = new Headers();
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    return (this.web = hookRequest(`${this.origin || 'http://localhost'}${this.target}`, this.method, headers));
  }
}
