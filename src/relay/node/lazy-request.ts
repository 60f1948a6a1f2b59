/**
 * The web `Request` the Node adapter hands to the hooks (`authorize`, `rateLimit`), built for real
 * only when something beyond `method`, `url` and `headers` is used.
 *
 * Why: in Node 20 every `new Request` makes an `AbortSignal`, and those outlive the young generation
 * (about 1.5 MB promoted per scavenge in a loop keeping ten alive, against 8 KB for plain objects), so
 * under load each request handed to `authorize` cost the relay about 35 µs of CPU, as much as
 * proxying the request itself (bench 3, docs/relay.md "What a request costs"). Most hooks read a
 * cookie or an `Authorization` header.
 *
 * The stand-in is a `Request` to `instanceof`, to TypeScript, and to the runtime's own
 * `new Request(x)` and `fetch(x)`: those read a request's internal fields, which the stand-in
 * forwards to the real one, built on first use from the same URL, method and `Headers` (changes a
 * hook made to `headers` before then are kept). Whether that holds on the running runtime is checked
 * once (`standInWorks`); where it does not (a `Request` keeping private state, as newer undici may),
 * real requests are built at once, as before.
 */

const RAW_URL = Symbol('url');
const HREF = Symbol('href');
const METHOD = Symbol('method');
const HEADERS = Symbol('headers');
const REAL = Symbol('request');

const realOf = (self: LazyRequest): Request => (self[REAL] ??= new Request(self[RAW_URL], { method: self[METHOD], headers: self[HEADERS] }));

/** The stand-in's class; its prototype is given `Request.prototype`'s members by `standInWorks`. */
class LazyRequest {
  [RAW_URL]: string;
  [HREF]: string | undefined = undefined;
  [METHOD]: string;
  [HEADERS]: Headers;
  [REAL]: Request | undefined = undefined;

  constructor(url: string, method: string, headers: Headers) {
    this[RAW_URL] = url;
    this[METHOD] = method;
    this[HEADERS] = headers;
  }

  get url(): string {
    // The serialised URL, as `Request#url` gives it (default port dropped, dot segments resolved).
    return this[REAL]?.url ?? (this[HREF] ??= new URL(this[RAW_URL]).href);
  }

  get method(): string {
    return this[REAL]?.method ?? this[METHOD];
  }

  get headers(): Headers {
    return this[REAL]?.headers ?? this[HEADERS];
  }
}

/** Gives the stand-in every other member of `Request.prototype` and the internal fields of a real request, forwarded. */
function forwardTheRest(): void {
  const proto = LazyRequest.prototype as unknown as Record<PropertyKey, unknown>;
  Object.setPrototypeOf(proto, Request.prototype);
  Object.defineProperty(proto, 'constructor', { value: Request, configurable: true, writable: true });
  const own = new Set<PropertyKey>(['constructor', 'url', 'method', 'headers']);
  for (const key of Reflect.ownKeys(Request.prototype)) {
    if (own.has(key)) continue;
    const d = Object.getOwnPropertyDescriptor(Request.prototype, key)!;
    if (typeof d.value === 'function') {
      Object.defineProperty(proto, key, {
        configurable: true,
        writable: true,
        value(this: LazyRequest, ...args: unknown[]) {
          const real = realOf(this) as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
          return real[key]!(...args);
        },
      });
    } else if (d.get) {
      Object.defineProperty(proto, key, { configurable: true, get(this: LazyRequest) { return (realOf(this) as unknown as Record<PropertyKey, unknown>)[key]; } });
    }
  }
  // What `new Request(x)` and `fetch(x)` read of a request given to them (undici: its state, signal, dispatcher, headers).
  for (const key of Object.getOwnPropertySymbols(new Request('http://probe.invalid/'))) {
    Object.defineProperty(proto, key, { configurable: true, get(this: LazyRequest) { return (realOf(this) as unknown as Record<symbol, unknown>)[key]; } });
  }
}

let works: boolean | undefined;

/** Whether a stand-in passes for a `Request` here: the runtime copies it, clones it and signals on it like a real one. */
function standInWorks(): boolean {
  if (works !== undefined) return works;
  try {
    forwardTheRest();
    const headers = new Headers([['x-probe', '1']]);
    const lazy = new LazyRequest('http://probe.invalid:80/a/../b?c=1', 'POST', headers) as unknown as Request;
    const early = lazy.url;
    const copy = new Request(lazy);
    const clone = lazy.clone();
    works =
      lazy instanceof Request &&
      early === 'http://probe.invalid/b?c=1' &&
      copy.url === early &&
      copy.method === 'POST' &&
      copy.headers.get('x-probe') === '1' &&
      clone.url === early &&
      lazy.signal instanceof AbortSignal &&
      lazy.headers.get('x-probe') === '1';
  } catch {
    works = false;
  }
  return works;
}

/**
 * A `Request` of `url`, `method` and `headers` for a hook: a stand-in built for real on first use
 * where the runtime allows it (see above), else a real one.
 */
export function hookRequest(url: string, method: string, headers: Headers): Request {
  return standInWorks() ? (new LazyRequest(url, method, headers) as unknown as Request) : new Request(url, { method, headers });
}
