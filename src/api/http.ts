import * as z from 'zod/mini';
import { fillPath, HTTPValidationError, objectToQuery, parseRequest, type Endpoint } from '../schemas/index.js';
import { systemClock, type Clock } from '../clock.js';
import { attempt, FailedAnswer, type ApiHooks, type AttemptPolicy } from './attempts.js';
import { htmlPage, keptBody, parseBody, readText } from './body.js';
import { Deadline } from './deadline.js';
import { ApiError, ValidationError } from './errors.js';
import { retryAfterOf } from './retry-after.js';
import { MAX_RETRY_AFTER_MS } from './retryable.js';

export { MAX_RETRY_AFTER_MS } from './retryable.js';

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Service base URL, or your relay's URL with its prefix (e.g. `https://example.com/api/voice`). */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer`. Server-side only: never give it to a browser. */
  apiKey?: string;
  /** Custom fetch (e.g. a relay's `fetch` in tests, or an instrumented one). */
  fetch?: typeof globalThis.fetch;
  /**
   * Time budget of one call in ms (default 30000): sending, every retry and its wait, and reading the
   * whole body. Streams: until the response headers arrive, then the longest silence between two
   * pieces of the stream.
   */
  timeout?: number;
  /** How many times idempotent GETs are retried on 408, 429, 500, 502, 503 and network errors, with backoff (default 2). */
  retry?: number;
  /**
   * Longest `Retry-After` (ms) the client waits out itself before retrying (default 5000). A longer
   * one, or one past the call's remaining budget, ends the call at once with the `ApiError` and its
   * `retryAfterMs`, for the caller to decide.
   */
  maxRetryAfter?: number;
  /** Extra headers sent with every request (e.g. your own session token for your relay). */
  headers?: Record<string, string>;
  /** Functions run around every request (token refresh, tracing): see {@link ApiHooks}. */
  hooks?: ApiHooks;
  /**
   * Time for every wait and time read of the client: call budgets, retry backoff and `Retry-After`
   * waits, stream silences, the `Retry-After` date (default the system clock). Tests pass a
   * `FakeClock` (kb-voice/testing), the same one as the VoiceSession's `clock`, to run on fake time.
   */
  clock?: Clock;
}

/** Default of {@link ApiClientOptions.timeout}. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export type { ApiHooks, RetrySignal } from './attempts.js';

/** Arguments of one call: path parameters, query and body, before validation. */
export interface CallArgs {
  params?: Record<string, string>;
  query?: unknown;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** Send to this URL instead of the one built from the path template (a resource the service named in `Location`). */
  url?: string;
}

/** A successful answer of {@link Http.exchange}: the validated body, the response (headers) and the URL asked. */
export interface Exchanged {
  value: unknown;
  response: Response;
  url: string;
}

/** An answer whose body is still to be read (a stream): read it within `idleMs` between pieces. */
export interface Opened {
  response: Response;
  /** The longest silence allowed between two pieces of the body. */
  idleMs: number;
  what: string;
  clock: Clock;
}

/** What a call is, in messages: `E13 GET /v1/robots/{ai_id}/realtime-usage`. */
export const describeEndpoint = (endpoint: Endpoint) => `${endpoint.id} ${endpoint.method} ${endpoint.path}`;

/**
 * Sends validated requests for endpoints of the table, each within one time budget (retries and the
 * body included), and validates what comes back.
 */
export class Http {
  readonly #base: string;
  readonly #timeout: number;
  readonly #headers: Headers;
  readonly #policy: AttemptPolicy;
  readonly #clock: Clock;

  constructor(options: ApiClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    const clock = (this.#clock = options.clock ?? systemClock);
    this.#headers = new Headers({ accept: 'application/json', ...options.headers });
    if (options.apiKey) this.#headers.set('authorization', `Bearer ${options.apiKey}`);
    this.#policy = {
      retry: options.retry ?? 2,
      maxRetryAfter: options.maxRetryAfter ?? MAX_RETRY_AFTER_MS,
      hooks: options.hooks ?? {},
      // Looked up at call time, so test runners that swap the global are honoured.
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      clock,
    };
  }

  /** Validates the request, sends it and returns the validated JSON body (`null` for an endpoint that may answer 204). */
  async call(endpoint: Endpoint, args: CallArgs = {}): Promise<unknown> {
    return (await this.exchange(endpoint, args)).value;
  }

  /** {@link call}, with the response (its headers) and the URL asked. */
  async exchange(endpoint: Endpoint, args: CallArgs = {}): Promise<Exchanged> {
    const { response, text, url } = await this.text(endpoint, args);
    const what = describeEndpoint(endpoint);
    const body = parseBody(text);
    if (body === undefined) {
      if (endpoint.empty) return { value: null, response, url };
      // A 204 where the answer may be a bare acknowledgement (E4–E8): the change was made.
      const ack = response.status === 204 ? z.safeParse(endpoint.response, {}) : undefined;
      if (ack?.success) return { value: ack.data, response, url };
      throw new ApiError('invalid_response', `${what}: answered ${response.status} with no body; the endpoint has one`, { status: response.status });
    }
    const parsed = z.safeParse(endpoint.response, body);
    if (!parsed.success) {
      // Text where JSON was due: a page from something in between, or JSON cut off.
      if (typeof body === 'string') {
        throw new ApiError('invalid_response', `${what}: answered ${response.status} with ${htmlPage(body) ?? `a body that is not complete JSON (${body.length} characters, cut off?)`}`, { status: response.status, body: keptBody(body) });
      }
      throw new ApiError('invalid_response', `${what}: response does not match the schema (${summarize(parsed.error, body)})`, { status: response.status, body, cause: parsed.error });
    }
    return { value: parsed.data, response, url };
  }

  /** Sends and reads the whole body as text, both within the call's budget. */
  async text(endpoint: Endpoint, args: CallArgs = {}): Promise<{ response: Response; text: string; url: string }> {
    const deadline = new Deadline(this.#timeout, args.signal, this.#clock);
    try {
      const { response, url } = await this.#send(endpoint, args, deadline);
      try {
        return { response, url, text: await readText(response, { signal: deadline.signal }) };
      } catch (error) {
        throw failure(error, deadline, describeEndpoint(endpoint), 'reading its body', response.status);
      }
    } finally {
      deadline.clear();
    }
  }

  /** Sends and returns the successful response with its body unread (streams, RT's text): the budget ends at the headers. */
  async open(endpoint: Endpoint, args: CallArgs): Promise<Opened> {
    const deadline = new Deadline(this.#timeout, args.signal, this.#clock);
    try {
      const { response } = await this.#send(endpoint, args, deadline);
      return { response, idleMs: this.#timeout, what: describeEndpoint(endpoint), clock: this.#clock };
    } finally {
      deadline.clear();
    }
  }

  /** Validates (with the shared `parseRequest`, as the relay and the emulator do) and sends. */
  async #send(endpoint: Endpoint, args: CallArgs, deadline: Deadline): Promise<{ response: Response; url: string }> {
    const parsed = parseRequest(endpoint, { params: args.params ?? {}, ...(args.query !== undefined ? { query: args.query as Record<string, unknown> } : {}), body: args.body });
    if (!parsed.ok) throw new ValidationError(parsed.detail, { local: true });
    const { params, query, body } = parsed.value as { params: Record<string, string>; query?: Record<string, unknown>; body?: unknown };

    const search = objectToQuery(query).toString();
    const url = args.url ?? `${this.#base}${fillPath(endpoint.path, params)}${search ? `?${search}` : ''}`;
    // A non-JSON body (RT's sdpfrag) is sent as the text it is, with its media type.
    const type = body === undefined ? undefined : (endpoint.contentType ?? 'application/json');
    const headers = new Headers(this.#headers);
    if (type) headers.set('content-type', type);
    const text = body === undefined ? undefined : endpoint.contentType ? (body as string) : JSON.stringify(body);
    try {
      const response = await attempt({ url, method: endpoint.method, headers, ...(text !== undefined ? { body: text } : {}) }, this.#policy, deadline);
      return { response, url };
    } catch (error) {
      throw await toApiError(error, endpoint, deadline, this.#clock);
    }
  }
}

/** The first schema issue, in words: `sessions.0.duration_ms: Invalid input: expected number, received string`. */
function summarize(error: z.core.$ZodError, body: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'no detail';
  const path = issue.path.join('.');
  // An absent field reads "missing sessions", not "sessions: Invalid input".
  const absent = issue.path.length > 0 && issue.path.reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined), body) === undefined;
  const said = issue.code === 'invalid_type' && absent ? `missing ${path}` : `${path ? `${path}: ` : ''}${issue.message}`;
  return `${said}${error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : ''}`;
}

/** A failure while the call was under way: the budget ran out, the caller aborted, or the read broke. */
function failure(error: unknown, deadline: Deadline, what: string, doing: string, status?: number): unknown {
  if (deadline.expired) return new ApiError('timeout', `${what} timed out after ${deadline.timeoutMs} ms (${doing})`, { status, cause: deadline.signal.reason });
  if (deadline.cancelled) return deadline.signal.reason ?? error;
  return new ApiError('invalid_response', `${what}: the connection broke while ${doing}`, { status, cause: error });
}

async function toApiError(error: unknown, endpoint: Endpoint, deadline: Deadline, clock: Clock): Promise<unknown> {
  const what = describeEndpoint(endpoint);
  if (error instanceof FailedAnswer) {
    // Only what the response said is kept: nothing that holds the request (its headers carry the key).
    const { status } = error.response;
    const body = parseBody(await readText(error.response, { signal: deadline.signal }).catch(() => ''));
    if (status === 422) {
      const parsed = z.safeParse(HTTPValidationError, body);
      if (parsed.success) return new ValidationError(parsed.data.detail, { local: false });
    }
    const foreign = htmlPage(body);
    const detail = body && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string' ? `: ${body.detail}` : foreign ? `: ${foreign}` : '';
    return new ApiError('http_error', `${what} failed with ${status}${detail}`, { status, body: keptBody(body), retryAfterMs: retryAfterOf(error.response, () => clock.now()) });
  }
  if (deadline.expired) return new ApiError('timeout', `${what} timed out after ${deadline.timeoutMs} ms`, { cause: deadline.signal.reason });
  if (deadline.cancelled || (error instanceof DOMException && error.name === 'AbortError')) return error;
  if (error instanceof ValidationError || error instanceof ApiError) return error;
  return new ApiError('network_error', `${what} could not reach the server`, { cause: error });
}
