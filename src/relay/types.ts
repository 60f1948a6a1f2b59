import type { RelayEndpointId } from './routes.js';
import type { RelayTracer } from './stages/trace.js';
import type { UpstreamFetch } from './upstream.js';

export type { RelayEndpointId, UpstreamFetch };

/**
 * Public types of the relay: options, the caller identity returned by `authorize`, hooks and the
 * handler object. Kept free of Node types so the relay mounts in any fetch-based runtime.
 */

/** `user` is scoped to the sessions created through the relay with their own identifier; `admin` sees the whole robot. */
export type RelayRole = 'user' | 'admin';

/** Who is calling, as decided by the `authorize` hook. */
export interface RelayCaller {
  /** Stable, non-empty identifier of the end user; sent upstream as `user_identifier` for role `user`. */
  userIdentifier: string;
  role: RelayRole;
}


/**
 * Decision of the rate-limit hook: `true` lets the request through; `false` or
 * `{ allowed: false, retryAfterSeconds }` answers 429 (with `Retry-After` when given).
 */
export type RateLimitDecision = boolean | { allowed: boolean; retryAfterSeconds?: number };

/**
 * One structured log line. Never contains the API key, the grant secret, a body or a header value
 * (other than the refused `Origin`). One entry per request: `info` when answered, `warn` for a
 * refusal (4xx), `error` for a failure (5xx); plus an `error` entry when a body was cut for holding
 * a secret, and a `warn` at creation without `authorize`.
 */
export interface RelayLogEntry {
  level: 'info' | 'warn' | 'error';
  /** `request` (answered), `refused` (4xx), `failed` (5xx), or a one-off event. */
  message: string;
  /** The caller's `x-request-id` when it is a simple token, else one the relay made; also sent upstream and returned. */
  requestId?: string;
  method?: string;
  endpoint?: RelayEndpointId;
  status?: number;
  durationMs?: number;
  role?: RelayRole;
  /** Why, in words: the refused origin, the 422 locations, the upstream status, the error. */
  reason?: string;
}

export type RelayLogger = (entry: RelayLogEntry) => void;

/** Options of {@link createRelay}. */
export interface RelayOptions {
  /** Base URL of the service (may carry a path prefix), e.g. `https://api.example.com`. */
  upstream: string | URL;
  /** The service API key. Sent only as `Authorization: Bearer` to the upstream; never returned or logged. */
  apiKey: string;
  /** Path prefix the relay answers under. Default `/api/voice`. */
  prefix?: string;
  /**
   * Identifies the caller from the incoming request (session cookie, your own token...). Return null
   * to answer 401. When omitted every caller is treated as `admin`: only for local QA.
   */
  authorize?: (request: Request) => RelayCaller | null | Promise<RelayCaller | null>;
  /** Exact origins (`https://app.example.com`) allowed to call cross-origin. Default: none. */
  allowedOrigins?: readonly string[];
  /** Upstream time limit in ms until response headers (and the whole body when the relay reads it). Default 30000. */
  timeoutMs?: number;
  /** Largest request body accepted, in bytes (413 above). Default 65536. */
  maxBodyBytes?: number;
  /**
   * Optional tracing (e.g. `relayTracing()` of `kb-voice/otel`): a server span per request, child of
   * the caller's `traceparent` and parent of the upstream's (the `trace` stage, right after `log`).
   */
  tracing?: RelayTracer;
  /** Optional rate limit, called after `authorize` and before any upstream call. */
  rateLimit?: (request: Request, caller: RelayCaller, endpoint: RelayEndpointId) => RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Secret for the session grants of role `user` (see `SessionGrants`). Default: derived from
   * `apiKey`. Set it explicitly when relay instances must keep accepting grants across a key rotation.
   */
  secret?: string;
  /** Receives one entry per request (see {@link RelayLogEntry}). Default: warnings and errors to `console`, one line each. */
  logger?: RelayLogger;
  /**
   * How to reach the upstream, with the standard `fetch(url, init)` signature (`globalThis.fetch`
   * fits; it must decode content codings as fetch does). Default: in Node `createNodeFetch()` (a
   * keep-alive `node:http(s)` client, cheaper than the global fetch), elsewhere the global `fetch`.
   */
  fetch?: UpstreamFetch;
}

/** A relay: a web-standard fetch handler. */
export interface Relay {
  /**
   * Handles one request; never throws (failures become JSON error responses). `env` is what the
   * host passes along (Workers bindings, `{ incoming }` from a Node adapter); from a Node request
   * the relay checks the raw request target, which `Request.url` has already normalised.
   */
  fetch(request: Request, env?: unknown): Promise<Response>;
  /** The normalised prefix the relay answers under (`''` for the root). */
  readonly prefix: string;
}
