import * as z from 'zod/mini';
import { callerResponseHeaders, upstreamRequestHeaders } from './headers.js';
import { errorResponse, Reply } from './responses.js';
import { callUpstream, readUpstreamText, UpstreamFailure, type UpstreamCall, type UpstreamTransport } from './upstream.js';
import type { RelayLogger } from './types.js';

/** Upper bound on an upstream error body the relay reads to relay it. */
const MAX_ERROR_BODY = 65_536;

export interface ForwarderOptions {
  /** Upstream base URL without trailing slash. */
  base: string;
  apiKey: string;
  /** Strings that must never reach a caller (the key, the grant secret). */
  secrets: readonly string[];
  timeoutMs: number;
  transport: UpstreamTransport;
  log: RelayLogger;
}

/**
 * Talks to the upstream for the relay: builds the request (bearer key, allowlisted headers, JSON
 * body), and turns the upstream response into the caller's response. Upstream failures become the
 * relay's own `{ detail }` errors, so no upstream URL, stack or credential echo reaches a caller.
 */
export class Forwarder {
  readonly #host: string;
  readonly #onLeak: () => void;

  constructor(private readonly o: ForwarderOptions) {
    this.#host = new URL(o.base).host;
    this.#onLeak = () => o.log({ level: 'error', message: 'upstream body contained a secret; stream cut' });
  }

  /** Sends one request to `path` (already filled and encoded) under the upstream base. */
  send(caller: Request, method: string, path: string, query: URLSearchParams | undefined, body: unknown): Promise<UpstreamCall> {
    const qs = query?.toString() ?? '';
    const url = `${this.o.base}${path}${qs ? `?${qs}` : ''}`;
    const hasBody = body !== undefined;
    const headers = upstreamRequestHeaders(caller.headers, this.o.apiKey, hasBody);
    return callUpstream(this.o.transport, { method, url, headers, ...(hasBody ? { body: JSON.stringify(body) } : {}) }, this.o.timeoutMs, caller);
  }

  /**
   * The caller's response for a non-2xx upstream answer, or null for a 2xx one. 401/403 mean the
   * relay's own key was refused (not the caller's fault) and 5xx/3xx an upstream failure: all 502.
   * A 4xx body is relayed unless it mentions a secret or the upstream address.
   */
  async errorFor(call: UpstreamCall): Promise<Reply | null> {
    const { status } = call.response;
    if (status >= 200 && status < 300) return null;
    if (status === 401 || status === 403 || status >= 500 || status < 200 || (status >= 300 && status < 400)) {
      call.response.cancel();
      call.settle();
      this.o.log({ level: 'warn', message: 'upstream answered an error', status });
      return errorResponse(502, status === 401 || status === 403 ? 'Upstream refused the relay credentials' : `Upstream error (status ${status})`);
    }
    const declared = Number(call.response.header('content-length') ?? 0);
    const text = declared > MAX_ERROR_BODY ? '' : await readUpstreamText(call);
    const unsafe = text.length > MAX_ERROR_BODY || this.o.secrets.some((s) => text.includes(s)) || text.includes(this.o.base) || text.includes(this.#host);
    if (unsafe || !text) return errorResponse(status, 'Upstream error');
    const headers = callerResponseHeaders(call.response, this.o.secrets);
    return new Reply(status, headers, text);
  }

  /**
   * Returns a 2xx (or error) upstream response to the caller, its body passed through unread and
   * unbuffered (cut if it would reveal a secret).
   */
  async passThrough(call: UpstreamCall): Promise<Reply> {
    const error = await this.errorFor(call);
    if (error) return error;
    call.settle();
    const { response } = call;
    const headers = callerResponseHeaders(response, this.o.secrets);
    if (response.status === 204 || response.status === 205) {
      response.cancel();
      return new Reply(response.status, headers, null);
    }
    return new Reply(response.status, headers, { upstream: response, secrets: this.o.secrets, onLeak: this.#onLeak });
  }

  /**
   * Reads a 2xx JSON body and validates it with `schema`; an error answer is returned as `error`.
   * `raw` is the JSON as received, `value` the validated form.
   */
  async readJson<S extends z.core.$ZodType>(call: UpstreamCall, schema: S): Promise<{ error: Reply } | { status: number; raw: unknown; value: z.output<S> }> {
    const error = await this.errorFor(call);
    if (error) return { error };
    const text = await readUpstreamText(call);
    if (this.o.secrets.some((s) => text.includes(s))) throw new UpstreamFailure('invalid_response', new Error('upstream body contained a secret'));
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      throw new UpstreamFailure('invalid_response', cause);
    }
    const parsed = z.safeParse(schema, raw);
    if (!parsed.success) throw new UpstreamFailure('invalid_response', parsed.error);
    return { status: call.response.status, raw, value: parsed.data };
  }
}
