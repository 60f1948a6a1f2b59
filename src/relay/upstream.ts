import * as z from 'zod/mini';
import { RelayError } from './errors.js';
import { parseBody } from '../api/body.js';
import { statusClass } from '../schemas/index.js';
import { readText, TooLarge } from './reply-text.js';
import { timedOut, upstreamError } from './upstream-errors.js';
import { containsSecret, guardBody, SecretScanner, Secrets, SecretWithheld } from './secret-scan.js';
import { callerResponseHeaders, upstreamRequestHeaders } from './headers.js';
import { BodyFailed } from './body-failed.js';
import { Deadlines, type Deadline } from './deadlines.js';
import { concat, mergeHeaders, OutgoingRequest, type Body, type HeaderList, type Incoming, type Reply, type UpstreamClient, type UpstreamReply } from './message.js';


/** Content codings an upstream client decodes by itself (as fetch does); the body the relay sees is already decoded. */
const DECODED_BY_TRANSPORT = new Set(['gzip', 'x-gzip', 'deflate', 'br']);
/** Upper bound on what is read before answering (see `passThrough`). */
const HEAD_BYTES = 65_536;

export interface UpstreamOptions {
  /** Upstream base URL without trailing slash. */
  base: string;
  apiKey: string;
  /** Strings that must never reach a caller (the key, the grant secret). */
  secrets: readonly string[];
  timeoutMs: number;
  client: UpstreamClient;
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
  /** Headers the relay sets itself (never `authorization`). */
  headers?: Record<string, string>;
  /** The caller's request: its allowlisted headers are forwarded and its going away aborts the call. */
  caller: Incoming;
  requestId: string;
}

/** An upstream answer to a call of the relay: the upstream client's reply, with what the relay keeps about it. */
export interface Answer extends UpstreamReply {
  /** Ends the time limit (the body was handed over or read). */
  settle(): void;
  requestId: string;
}

/** An {@link Answer}: an instance with methods, not a literal with closures (see `ReceivedReply` in message.ts). */
class HandedAnswer implements Answer {
  readonly status: number;
  readonly headers: HeaderList;
  readonly body: Uint8Array | Body | null;

  constructor(
    private readonly reply: UpstreamReply,
    private readonly deadlines: Deadlines,
    private readonly limit: Deadline,
    readonly requestId: string,
  ) {
    this.status = reply.status;
    this.headers = reply.headers;
    this.body = reply.body;
  }

  cancel(): void {
    this.reply.cancel();
  }

  settle(): void {
    this.deadlines.clear(this.limit);
  }
}

/**
 * Talks to the upstream for the relay: builds the request (bearer key, allowlisted headers, asks
 * for an unencoded body), applies the time limit, and turns what comes back into the caller's
 * reply or a thrown `RelayError`, so no upstream URL, stack or credential echo reaches a caller.
 */
export class Upstream {
  readonly #host: string;
  /** `Bearer <apiKey>`, made once rather than per request. */
  readonly #authorization: string;
  readonly #secrets: Secrets;
  /** For whole bodies only (`leaksWhole` keeps no state between calls): one per relay, not one per request. */
  readonly #scanner: SecretScanner;
  /** The calls' time limits (`timeoutMs`), on one timer. */
  readonly #deadlines: Deadlines;

  constructor(private readonly o: UpstreamOptions) {
    this.#deadlines = new Deadlines(o.timeoutMs);
    this.#host = new URL(o.base).host;
    this.#authorization = `Bearer ${o.apiKey}`;
    this.#secrets = new Secrets(o.secrets);
    this.#scanner = new SecretScanner(this.#secrets);
  }

  /**
   * Sends one request. The time limit covers the wait for the response headers and, until the body
   * is handed over or read, the body too; the caller going away aborts the call. A non-2xx answer is
   * thrown: 401/403 (the relay's own key refused), 3xx and 5xx as 502, a 4xx with its `detail`
   * unless that mentions a secret or the upstream address.
   */
  send(call: UpstreamCall): Promise<Answer> {
    // A promise chain rather than an async function: one promise less per request on the hot path.
    try {
      return this.#send(call);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #send(call: UpstreamCall): Promise<Answer> {
    const qs = call.query?.toString() ?? '';
    const own = upstreamRequestHeaders(call.caller, this.#authorization, call.body?.type, call.requestId);
    const headers = call.headers ? mergeHeaders(call.headers, own) : own;
    const control: { abort?: () => void } = {};
    let ended: 'timeout' | 'caller' | undefined;
    const end = (why: 'timeout' | 'caller') => {
      ended ??= why;
      control.abort?.();
    };
    const limit = this.#deadlines.start(() => end('timeout'));
    // The caller going away still aborts a streamed body: only the time limit ends at hand-over.
    const unsubscribe = call.caller.onClose(() => end('caller'));
    const done = () => {
      this.#deadlines.clear(limit);
      unsubscribe();
    };
    const failed = (error: unknown): never => {
      done();
      if (ended === 'timeout') throw timedOut(this.o.timeoutMs, error);
      // 499 (as nginx logs it): nobody reads this answer, and it is no upstream failure.
      if (ended === 'caller') throw new RelayError(499, 'Client closed request', 'the caller went away before the upstream answered', {}, error);
      if (error instanceof BodyFailed) throw new RelayError(502, 'Upstream response failed', `upstream body failed (${describe(error)})`, {}, error);
      throw new RelayError(502, 'Upstream unreachable', `upstream unreachable (${describe(error)})`, {}, error);
    };
    const answered = (reply: UpstreamReply): Answer | Promise<never> => {
      if (ended) {
        done();
        reply.cancel();
        if (ended === 'timeout') throw timedOut(this.o.timeoutMs);
        throw new RelayError(499, 'Client closed request', 'the caller went away before the upstream answered');
      }
      // Fields, not a WeakMap keyed by short-lived replies (ephemerons make every GC slower).
      if (statusClass(reply.status) === 'success') return new HandedAnswer(reply, this.#deadlines, limit, call.requestId);
      done();
      return this.#errorOf(reply).then((error) => Promise.reject(error));
    };
    let replied: Promise<UpstreamReply>;
    try {
      replied = this.o.client(new OutgoingRequest(`${this.o.base}${call.path}${qs ? `?${qs}` : ''}`, call.method, headers, call.body?.text), control);
    } catch (error) {
      replied = Promise.reject(error);
    }
    return replied.then(answered, failed);
  }

  /** The caller's error for a non-2xx upstream answer (see `upstreamError`). */
  #errorOf(reply: UpstreamReply): Promise<RelayError> {
    return upstreamError(reply, (t) => containsSecret(t, this.#secrets) || t.includes(this.o.base) || t.includes(this.#host));
  }

  #discard(reply: UpstreamReply, error: RelayError): RelayError {
    reply.cancel();
    return error;
  }

  /** The caller's headers for an upstream answer (added to `headers`, else a new record); refuses a body in a coding the relay cannot scan. */
  #headersFor(reply: UpstreamReply, headers: Record<string, string> = {}): Record<string, string> {
    const upstream = reply.headers;
    callerResponseHeaders(upstream, this.#secrets, headers);
    const coding = upstream.get('content-encoding')?.trim().toLowerCase();
    if (coding && coding !== 'identity') {
      if (!DECODED_BY_TRANSPORT.has(coding)) throw this.#discard(reply, new RelayError(502, 'Invalid upstream response', `upstream sent content-encoding ${coding}, which the relay cannot decode to scan`));
    } else {
      // Unencoded, so the body the caller gets is byte for byte the upstream's.
      const length = upstream.get('content-length');
      if (length !== null) headers['content-length'] = length;
    }
    return headers;
  }


  /**
   * A 2xx answer for the caller, its body passed through unbuffered and scanned for secrets. A body
   * that arrived whole (bytes) is scanned and answered in the same turn (no promise). Otherwise,
   * except for event streams, what arrives in the first turn of the event loop is read (within the
   * time limit) before answering, so a secret in it answers 502; a later one cuts the body.
   */
  passThrough(reply: Answer, extraHeaders: Record<string, string>): Reply | Promise<Reply> {
    const headers = this.#headersFor(reply, mergeHeaders(extraHeaders));
    const { status, body } = reply;
    if (!body || status === 204 || status === 205) {
      reply.settle();
      reply.cancel();
      delete headers['content-length'];
      return { status, headers, body: null };
    }
    if (body instanceof Uint8Array) {
      reply.settle();
      if (this.#scanner.leaksWhole(body)) {
        this.o.onLeak(reply.requestId);
        throw new RelayError(502, 'Upstream response failed', new SecretWithheld().message);
      }
      headers['content-length'] = String(body.byteLength);
      return { status, headers, body };
    }
    return this.#passStream(reply, body, headers);
  }

  async #passStream(reply: Answer, body: AsyncIterable<Uint8Array>, headers: Record<string, string>): Promise<Reply> {
    const settle = () => reply.settle();
    const { status } = reply;
    const scanner = new SecretScanner(this.#secrets);
    const onLeak = () => this.o.onLeak(reply.requestId);
    const iterator = body[Symbol.asyncIterator]();
    if (headers['content-type']?.startsWith('text/event-stream')) {
      settle();
      return { status, headers, body: guardBody(iterator, scanner, onLeak) };
    }
    // What arrives within one turn of the event loop (up to 64 KiB) is read and scanned before
    // answering: a secret in it answers 502, and a body that ends in it goes out with its length.
    const head: Uint8Array[] = [];
    let size = 0;
    let done = false;
    let pending: Promise<IteratorResult<Uint8Array>> | undefined;
    // A body of a declared length is complete once that many bytes arrived: no wait for its end
    // (which is still read, so the connection is reused).
    const declared = headers['content-length'] === undefined ? -1 : Number(headers['content-length']);
    try {
      while (size < HEAD_BYTES) {
        pending ??= iterator.next();
        const read = head.length === 0 ? await pending : await Promise.race([pending, nextTurn()]);
        if (read === null) break;
        pending = undefined;
        if (read.done) {
          done = true;
          break;
        }
        head.push(read.value);
        size += read.value.byteLength;
        if (size === declared) {
          done = true;
          void iterator.next().catch(() => {});
        }
        if (scanner.leaks(read.value)) {
          onLeak();
          reply.cancel();
          throw new RelayError(502, 'Upstream response failed', new SecretWithheld().message);
        }
        if (done) break;
      }
    } catch (error) {
      if (error instanceof RelayError) throw error;
      reply.cancel();
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
      return { status, headers, body: first };
    }
    return { status, headers, body: guardBody(iterator, scanner, onLeak, first, pending) };
  }

  /**
   * Reads a 2xx JSON answer within the time limit and at most `maxBytes` of it (502 beyond, the rest
   * unread), refuses one holding a secret, and validates it. `narrow`, when given, cuts the parsed
   * JSON down before validation (a user's report: only their sessions are validated), so what is
   * validated is what will be used.
   */
  async readJson<S extends z.core.$ZodType>(reply: Answer, schema: S, maxBytes = Number.POSITIVE_INFINITY, narrow?: (raw: unknown) => unknown): Promise<{ raw: unknown; value: z.output<S> }> {
    this.#headersFor(reply);
    let text: string;
    try {
      text = await readText(reply, maxBytes);
    } catch (error) {
      reply.cancel();
      if (error instanceof TooLarge) throw new RelayError(502, 'Upstream answer too large for the relay', `upstream JSON over the ${maxBytes}-byte cap (maxUpstreamJsonBytes)`);
      throw new RelayError(502, 'Upstream response failed', `upstream body failed (${describe(error)})`, {}, error);
    } finally {
      reply.settle();
    }
    if (containsSecret(text, this.#secrets)) {
      this.o.onLeak(reply.requestId);
      throw new RelayError(502, 'Invalid upstream response', 'upstream body contained a secret');
    }
    const raw = narrow ? narrow(parseBody(text)) : parseBody(text);
    const parsed = z.safeParse(schema, raw);
    if (!parsed.success) throw new RelayError(502, 'Invalid upstream response', `upstream body is not the expected JSON (${parsed.error.issues.length} issue(s), first at ${parsed.error.issues[0]?.path.join('.') || 'the top'})`);
    return { raw, value: parsed.data };
  }
}

/** Resolves null after the current turn of the event loop (pending I/O callbacks run first; setImmediate where there is one). */
const later: (f: () => void) => unknown = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate ?? ((f) => setTimeout(f, 0));
const nextTurn = () => new Promise<null>((resolve) => later(() => resolve(null)));

/** Error text for logs: names and messages down the cause chain (scrubbed by the logger). */
export function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(' <- ');
}
