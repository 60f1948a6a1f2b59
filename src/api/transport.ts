import ky, { HTTPError, TimeoutError, type AfterResponseHook, type BeforeRequestHook, type KyInstance } from 'ky';
import * as z from 'zod/mini';
import { fillPath, HTTPValidationError, objectToQuery, parseRequest, type Endpoint } from '../schemas/index.js';
import { ApiError, ValidationError } from './errors.js';

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Service base URL, or your relay's URL with its prefix (e.g. `https://example.com/api/voice`). */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer`. Server-side only: never give it to a browser. */
  apiKey?: string;
  /** Custom fetch (e.g. a relay's `fetch` in tests, or an instrumented one). */
  fetch?: typeof globalThis.fetch;
  /** Per-request timeout in ms (default 30000). Streams: until the response headers arrive. */
  timeout?: number;
  /** How many times idempotent GETs are retried on 5xx, 408, 429 and network errors, with backoff (default 2). */
  retry?: number;
  /** Extra headers sent with every request (e.g. your own session token for your relay). */
  headers?: Record<string, string>;
  /** Functions run around every request (token refresh, tracing): see {@link ApiHooks}. */
  hooks?: ApiHooks;
}

/** What `afterResponse` returns to send the request again (made by `info.retry()`). */
export type RetrySignal = ReturnType<typeof ky.retry>;

/**
 * Hooks of the API client (ky's, narrowed to what the client supports). Each runs for every
 * attempt, retries included, in order.
 * - `beforeRequest(request, { retryCount })`: change the request before it is sent (e.g.
 *   `request.headers.set('authorization', …)` with your current token, a trace header); return a
 *   `Request` to send instead, or a `Response` to answer without sending.
 * - `afterResponse(request, response, { retryCount, retry })`: look at the response (tracing,
 *   metrics); return a `Response` to use instead, or `retry()` to send the request again, e.g. after
 *   refreshing a token on a 401 (any method; `beforeRequest` runs again; it counts against the
 *   `retry` limit, so `retry: 0` allows none).
 */
export interface ApiHooks {
  beforeRequest?: ((request: Request, info: { retryCount: number }) => Request | Response | void | Promise<Request | Response | void>)[];
  afterResponse?: ((request: Request, response: Response, info: { retryCount: number; retry: () => RetrySignal }) => Response | RetrySignal | void | Promise<Response | RetrySignal | void>)[];
}

const retry = () => ky.retry();

/** The client's hooks as ky's. */
function kyHooks(hooks: ApiHooks | undefined) {
  return {
    beforeRequest: (hooks?.beforeRequest ?? []).map((hook): BeforeRequestHook => (request, _options, state) => hook(request, { retryCount: state.retryCount })),
    afterResponse: (hooks?.afterResponse ?? []).map((hook): AfterResponseHook => (request, _options, response, state) => hook(request, response, { retryCount: state.retryCount, retry })),
  };
}

/** Arguments of one call: path parameters, query and body, before validation. */
export interface CallArgs {
  params?: Record<string, string>;
  query?: unknown;
  body?: unknown;
  signal?: AbortSignal | undefined;
}

/** Sends validated requests for endpoints of the table and validates what comes back. */
export class Transport {
  readonly #ky: KyInstance;
  readonly #base: string;

  constructor(options: ApiClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    this.#ky = ky.create({
      headers,
      timeout: options.timeout ?? 30_000,
      retry: {
        limit: options.retry ?? 2,
        methods: ['get'],
        statusCodes: [408, 429, 500, 502, 503, 504],
        backoffLimit: 2_000,
      },
      hooks: kyHooks(options.hooks),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** Validates the request, sends it and returns the validated JSON body (`null` for 204). */
  async call(endpoint: Endpoint, args: CallArgs = {}): Promise<unknown> {
    const response = await this.send(endpoint, args);
    if (response.status === 204) return null;
    const body = await readBody(response);
    const parsed = z.safeParse(endpoint.response, body);
    if (!parsed.success) {
      throw new ApiError('invalid_response', `${endpoint.id} ${endpoint.method} ${endpoint.path}: response does not match the schema`, {
        status: response.status, body, cause: parsed.error,
      });
    }
    return parsed.data;
  }

  /** Validates (with the shared `parseRequest`, as the relay and the emulator do) and sends, returning the raw successful response (used for streams). */
  async send(endpoint: Endpoint, args: CallArgs): Promise<Response> {
    const parsed = parseRequest(endpoint, { params: args.params ?? {}, ...(args.query !== undefined ? { query: args.query as Record<string, unknown> } : {}), body: args.body });
    if (!parsed.ok) throw new ValidationError(parsed.detail, { local: true });
    const { params, query, body } = parsed.value as { params: Record<string, string>; query?: Record<string, unknown>; body?: unknown };

    const search = objectToQuery(query).toString();
    const url = `${this.#base}${fillPath(endpoint.path, params)}${search ? `?${search}` : ''}`;
    try {
      return await this.#ky(url, {
        method: endpoint.method,
        // A non-JSON body (RT's sdpfrag) is sent as the text it is, with its media type.
        ...(body === undefined ? {} : endpoint.contentType ? { body: body as string, headers: { 'content-type': endpoint.contentType } } : { json: body }),
        ...(args.signal ? { signal: args.signal } : {}),
      });
    } catch (error) {
      throw await toApiError(error, endpoint);
    }
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function toApiError(error: unknown, endpoint: Endpoint): Promise<Error> {
  const what = `${endpoint.id} ${endpoint.method} ${endpoint.path}`;
  if (error instanceof HTTPError) {
    const { status } = error.response;
    const body = await readBody(error.response).catch(() => undefined);
    if (status === 422) {
      const parsed = z.safeParse(HTTPValidationError, body);
      if (parsed.success) return new ValidationError(parsed.data.detail, { local: false, cause: error });
    }
    const detail = body && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string' ? `: ${body.detail}` : '';
    return new ApiError('http_error', `${what} failed with ${status}${detail}`, { status, body, cause: error });
  }
  if (error instanceof TimeoutError) return new ApiError('timeout', `${what} timed out`, { cause: error });
  if (error instanceof DOMException && error.name === 'AbortError') return error;
  return new ApiError('network_error', `${what} could not reach the server`, { cause: error });
}
