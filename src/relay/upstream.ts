import * as z from 'zod/mini';
import { HTTPValidationError } from '../schemas/index.js';
import { RelayError } from './errors.js';
import { containsSecret, guardStream, SecretScanner, SecretWithheld } from './guard.js';
import { callerResponseHeaders, upstreamRequestHeaders } from './headers.js';

/** How the relay reaches the upstream: the standard `fetch(url, init)` signature (the global `fetch` fits). */
export type UpstreamFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Content codings a fetch decodes by itself (Fetch standard); the body the relay sees is already decoded. */
const DECODED_BY_FETCH = new Set(['gzip', 'x-gzip', 'deflate', 'br']);
/** Upper bound on an upstream error body the relay reads to relay its `detail`. */
const MAX_ERROR_BODY = 65_536;

export interface UpstreamOptions {
  /** Upstream base URL without trailing slash. */
  base: string;
  apiKey: string;
  /** Strings that must never reach a caller (the key, the grant secret). */
  secrets: readonly string[];
  timeoutMs: number;
  fetch: UpstreamFetch;
  /** Called when a body was cut because it held a secret (for the log). */
  onLeak: (requestId: string) => void;
}

/** One upstream request as a route asks for it. */
export interface UpstreamCall {
  method: string;
  /** Path under the base, already filled and encoded. */
  path: string;
  query?: URLSearchParams | undefined;
  /** JSON value, or text with its content type. */
  body?: { type: string; text: string } | undefined;
  /** The caller's request: its allowlisted headers are forwarded and its going away aborts the call. */
  caller: Request;
  requestId: string;
}

/**
 * Talks to the upstream for the relay: builds the request (bearer key, allowlisted headers, asks
 * for an unencoded body), applies the time limit, and turns what comes back into the caller's
 * response or a thrown `RelayError`, so no upstream URL, stack or credential echo reaches a caller.
 */
export class Upstream {
  readonly #host: string;
  /** Ends the time limit of a response whose body is still being read. */
  readonly #settle = new WeakMap<Response, () => void>();
  readonly #requestIds = new WeakMap<Response, string>();

  constructor(private readonly o: UpstreamOptions) {
    this.#host = new URL(o.base).host;
  }

  /**
   * Sends one request. The time limit covers the wait for the response headers and, until the body
   * is handed over or read, the body too; the caller going away aborts the call. A non-2xx answer is
   * thrown: 401/403 (the relay's own key refused), 3xx and 5xx as 502, a 4xx with its `detail`
   * unless that mentions a secret or the upstream address.
   */
  async send(call: UpstreamCall): Promise<Response> {
    const qs = call.query?.toString() ?? '';
    const headers = upstreamRequestHeaders(call.caller.headers, this.o.apiKey, call.body?.type, call.requestId);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.o.timeoutMs);
    const onCallerGone = () => controller.abort();
    const signal = call.caller.signal;
    if (signal.aborted) controller.abort();
    else signal.addEventListener('abort', onCallerGone, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCallerGone);
    };
    let response: Response;
    try {
      response = await this.o.fetch(`${this.o.base}${call.path}${qs ? `?${qs}` : ''}`, {
        method: call.method, headers, signal: controller.signal, redirect: 'manual', ...(call.body ? { body: call.body.text } : {}),
      });
    } catch (error) {
      settle();
      if (timedOut) throw new RelayError(504, 'Upstream timed out', `upstream gave no answer within ${this.o.timeoutMs} ms`, {}, error);
      // 499 (as nginx logs it): nobody reads this answer, and it is no upstream failure.
      if (signal.aborted) throw new RelayError(499, 'Client closed request', 'the caller went away before the upstream answered', {}, error);
      throw new RelayError(502, 'Upstream unreachable', `upstream unreachable (${describe(error)})`, {}, error);
    }
    // The caller going away still aborts a streamed body: only the time limit ends at hand-over.
    this.#settle.set(response, () => clearTimeout(timer));
    this.#requestIds.set(response, call.requestId);
    if (response.status >= 200 && response.status < 300) return response;
    settle();
    throw await this.#errorOf(response);
  }

  async #errorOf(response: Response): Promise<RelayError> {
    const { status } = response;
    const reason = `upstream answered ${status}`;
    if (status === 401 || status === 403) return this.#discard(response, new RelayError(502, 'Upstream refused the relay credentials', `${reason}: the relay's API key was refused`));
    if (status < 400 || status >= 500) return this.#discard(response, new RelayError(502, `Upstream error (status ${status})`, reason));
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_ERROR_BODY) return this.#discard(response, new RelayError(status, 'Upstream error', `${reason} with a body over ${MAX_ERROR_BODY} bytes`));
    const text = await response.text().catch(() => '');
    const parsed = z.safeParse(z.object({ detail: z.union([z.string(), HTTPValidationError.shape.detail]) }), safeJson(text));
    const unsafe = text.length > MAX_ERROR_BODY || this.#leaks(text) || text.includes(this.o.base) || text.includes(this.#host);
    const detail = parsed.success && !unsafe ? parsed.data.detail : 'Upstream error';
    return new RelayError(status, detail, unsafe ? `${reason}; its body named a secret or the upstream address and was withheld` : reason);
  }

  #discard(response: Response, error: RelayError): RelayError {
    void response.body?.cancel().catch(() => {});
    return error;
  }

  #leaks(text: string): boolean {
    return containsSecret(text, this.o.secrets);
  }

  /** The caller's headers for an upstream response; refuses a body in a coding the relay cannot scan. */
  #headersFor(response: Response): Record<string, string> {
    const headers = callerResponseHeaders(response.headers, this.o.secrets);
    const coding = response.headers.get('content-encoding')?.trim().toLowerCase();
    if (coding && coding !== 'identity') {
      if (!DECODED_BY_FETCH.has(coding)) throw this.#discard(response, new RelayError(502, 'Invalid upstream response', `upstream sent content-encoding ${coding}, which the relay cannot decode to scan`));
    } else {
      // Unencoded, so the body the caller gets is byte for byte the upstream's.
      const length = response.headers.get('content-length');
      if (length !== null) headers['content-length'] = length;
    }
    return headers;
  }

  /**
   * A 2xx answer for the caller, its body passed through unbuffered and scanned for secrets. Except
   * for event streams, what arrives in the first turn of the event loop is read (within the time
   * limit) before answering, so a secret in it answers 502; a later one cuts the body.
   */
  async passThrough(response: Response, extraHeaders: Record<string, string>): Promise<Response> {
    const headers = { ...extraHeaders, ...this.#headersFor(response) };
    const settle = this.#settle.get(response) ?? (() => {});
    if (!response.body || response.status === 204 || response.status === 205) {
      settle();
      void response.body?.cancel().catch(() => {});
      return new Response(null, { status: response.status, headers });
    }
    const scanner = new SecretScanner(this.o.secrets);
    const onLeak = () => this.o.onLeak(this.#requestIds.get(response) ?? '');
    const reader = response.body.getReader();
    if (headers['content-type']?.startsWith('text/event-stream')) {
      settle();
      return new Response(guardStream(reader, scanner, onLeak), { status: response.status, headers });
    }
    // What arrives within one turn of the event loop (up to 64 KiB) is read and scanned before
    // answering: a secret in it answers 502, and a body that ends in it goes out with its length.
    const head: Uint8Array[] = [];
    let size = 0;
    let done = false;
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
    try {
      while (size < 65_536) {
        pending ??= reader.read();
        const read = head.length === 0 ? await pending : await Promise.race([pending, nextTurn()]);
        if (read === null) break;
        pending = undefined;
        if (read.done) {
          done = true;
          break;
        }
        head.push(read.value);
        size += read.value.byteLength;
        if (scanner.leaks(read.value)) {
          onLeak();
          void reader.cancel().catch(() => {});
          throw new RelayError(502, 'Upstream response failed', new SecretWithheld().message);
        }
      }
    } catch (error) {
      if (error instanceof RelayError) throw error;
      throw new RelayError(502, 'Upstream response failed', `upstream body failed (${describe(error)})`, {}, error);
    } finally {
      settle();
    }
    const first = concat(head, size);
    if (done) {
      if (scanner.leaks()) {
        onLeak();
        throw new RelayError(502, 'Upstream response failed', new SecretWithheld().message);
      }
      headers['content-length'] = String(size);
      return new Response(size > 0 ? (first as Uint8Array<ArrayBuffer>) : null, { status: response.status, headers });
    }
    return new Response(guardStream(reader, scanner, onLeak, first, pending), { status: response.status, headers });
  }

  /** Reads a 2xx JSON answer within the time limit, refuses one holding a secret, and validates it. */
  async readJson<S extends z.core.$ZodType>(response: Response, schema: S): Promise<{ raw: unknown; value: z.output<S> }> {
    this.#headersFor(response);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new RelayError(502, 'Upstream response failed', `upstream body failed (${describe(error)})`, {}, error);
    } finally {
      this.#settle.get(response)?.();
    }
    if (this.#leaks(text)) {
      this.o.onLeak(this.#requestIds.get(response) ?? '');
      throw new RelayError(502, 'Invalid upstream response', 'upstream body contained a secret');
    }
    const raw = safeJson(text);
    const parsed = z.safeParse(schema, raw);
    if (!parsed.success) throw new RelayError(502, 'Invalid upstream response', `upstream body is not the expected JSON (${parsed.error.issues.length} issue(s), first at ${parsed.error.issues[0]?.path.join('.') || 'the top'})`);
    return { raw, value: parsed.data };
  }
}

/** Resolves null after the current turn of the event loop (pending I/O callbacks run first; setImmediate where there is one). */
const later: (f: () => void) => unknown = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate ?? ((f) => setTimeout(f, 0));
const nextTurn = () => new Promise<null>((resolve) => later(() => resolve(null)));

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Error text for logs: names and messages down the cause chain (scrubbed by the logger). */
export function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(' <- ');
}
