import type { IncomingMessage } from 'node:http';
import { CALLER_GONE, PARSED_URL } from './internal.js';

const HOST_HEADER = /^[A-Za-z0-9.\-:[\]]{1,255}$/;
const BODYLESS = new Set(['GET', 'HEAD']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Forwards every member of `proto` that `target` does not define to the native object made by
 * `native(this)`, so the lightweight objects below behave like the real ones in every respect.
 */
function delegateRest(target: object, proto: object, native: (self: never) => object) {
  // The whole chain: the global may be a subclass (@hono/node-server replaces `Request` globally).
  const keys: PropertyKey[] = [];
  for (let p: object | null = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) keys.push(...Reflect.ownKeys(p));
  for (const key of keys) {
    if (key === 'constructor' || Object.prototype.hasOwnProperty.call(target, key)) continue;
    let owner: object = proto;
    while (!Object.prototype.hasOwnProperty.call(owner, key)) owner = Object.getPrototypeOf(owner) as object;
    const d = Object.getOwnPropertyDescriptor(owner, key)!;
    if (typeof d.value === 'function') {
      Object.defineProperty(target, key, { configurable: true, writable: true, value(this: never, ...args: unknown[]) {
        const n = native(this) as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return n[key]!(...args);
      } });
    } else if (d.get) {
      Object.defineProperty(target, key, { configurable: true, get(this: never) {
        return (native(this) as Record<PropertyKey, unknown>)[key];
      } });
    }
  }
}

/**
 * `Headers` over a Node request's raw header list: `get`/`has` read the list directly (the relay
 * only ever looks up a few names); anything else builds the real `Headers` once and uses it.
 */
class NodeHeaders {
  readonly #raw: string[];
  #native: Headers | undefined;

  constructor(raw: string[]) {
    this.#raw = raw;
  }

  static native(self: NodeHeaders): Headers {
    if (!self.#native) {
      const h = new Headers();
      for (let i = 0; i + 1 < self.#raw.length; i += 2) if (!self.#raw[i]!.startsWith(':')) h.append(self.#raw[i]!, self.#raw[i + 1]!);
      self.#native = h;
    }
    return self.#native;
  }

  get(name: string): string | null {
    if (this.#native || typeof name !== 'string' || !TOKEN.test(name)) return NodeHeaders.native(this).get(name);
    const lower = name.toLowerCase();
    const separator = lower === 'cookie' ? '; ' : ', ';
    const raw = this.#raw;
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const n = raw[i]!;
      if (n.length === lower.length && n.toLowerCase() === lower) value = value === null ? raw[i + 1]! : value + separator + raw[i + 1]!;
    }
    return value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

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

/**
 * A web `Request` for a Node request that builds nothing it is not asked for: method, URL, header
 * lookups and the abort signal come straight from the `IncomingMessage`; the first use of anything
 * else (the body, `clone()`, `mode`...) builds the real undici `Request` once and delegates to it.
 * `instanceof Request` holds, so `authorize`/`rateLimit` hooks see an ordinary request.
 */
export class NodeRequest {
  readonly #req: IncomingMessage;
  readonly #url: string;
  #parsed: URL | undefined;
  #headers: NodeHeaders | undefined;
  #controller: AbortController | undefined;
  #aborted = false;
  #gone: (() => void)[] = [];
  #native: Request | undefined;

  constructor(req: IncomingMessage) {
    if (!prototypesLinked) linkPrototypes();
    this.#req = req;
    const hostHeader = req.headers.host ?? '';
    const host = HOST_HEADER.test(hostHeader) ? hostHeader : 'localhost';
    const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
    // Concatenated rather than resolved against a base, so `//x/y` stays a path (and fails the allowlist).
    this.#url = `${encrypted ? 'https' : 'http'}://${host}${req.url ?? '/'}`;
  }

  static native(self: NodeRequest): Request {
    if (!self.#native) {
      const method = self.method;
      const init: RequestInit & { duplex?: 'half' } = { method, headers: NodeHeaders.native(self.headers as unknown as NodeHeaders), signal: self.signal };
      if (!BODYLESS.has(method)) {
        init.body = bodyStream(self.#req);
        init.duplex = 'half';
      }
      self.#native = new Request(self.#url, init);
    }
    return self.#native;
  }

  /** Marks the caller as gone (the Node response closed before it finished). */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    for (const l of this.#gone.splice(0)) l();
  }

  [CALLER_GONE](listener: () => void): void {
    if (this.#aborted) listener();
    else this.#gone.push(listener);
  }

  [PARSED_URL](): URL {
    return (this.#parsed ??= new URL(this.#url));
  }

  get method(): string {
    return this.#req.method ?? 'GET';
  }

  get url(): string {
    return this[PARSED_URL]().href;
  }

  get headers(): Headers {
    return (this.#headers ??= new NodeHeaders(this.#req.rawHeaders)) as unknown as Headers;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }
}

let prototypesLinked = false;

/**
 * Makes the lightweight classes inherit from (and delegate to) the real `Headers`/`Request`. Done on
 * first use, not at import: touching those globals loads undici and with it `node:http`, and
 * importing `kb-voice/relay` must load no Node module.
 */
function linkPrototypes() {
  prototypesLinked = true;
  delegateRest(NodeHeaders.prototype, Headers.prototype, (self: NodeHeaders) => NodeHeaders.native(self));
  Object.setPrototypeOf(NodeHeaders.prototype, Headers.prototype);
  delegateRest(NodeRequest.prototype, Request.prototype, (self: NodeRequest) => NodeRequest.native(self));
  Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);
}
