/**
 * Public types of the relay: options, the caller identity returned by `authorize`, hooks, an app's
 * own stages and the handler object. A leaf module (it imports nothing), written out rather than
 * derived from the route table, and free of Node types so the relay mounts in any fetch runtime.
 */

/**
 * The endpoints the relay lets through (see `RELAY_ENDPOINT_IDS`): realtime signaling and its session
 * resource, E1, the reports E11–E13, E14, E17, E19, E6, E15, and the OpenAI-compatible routes.
 */
export type RelayEndpointId = 'RS' | 'RT' | 'E1' | 'E11' | 'E12' | 'E13' | 'E14' | 'E17' | 'E19' | 'E6' | 'E18' | 'E9' | 'E15' | 'OAI_SECRET' | 'OAI_CALL';

/** How the relay reaches the upstream when given a `fetch`: the standard `fetch(url, init)` signature (the global `fetch` fits). */
export type UpstreamFetch = (url: string, init: RequestInit) => Promise<Response>;

/** `user` is scoped to the sessions created through the relay with their own identifier; `admin` sees the whole robot. */
export type RelayRole = 'user' | 'admin';

/** Who is calling, as decided by the `authorize` hook. */
export interface RelayCaller {
  /** Stable, non-empty identifier of the end user; sent upstream as `user_identifier` for role `user`. */
  userIdentifier: string;
  role: RelayRole;
  /**
   * Narrows this caller to these robot ids (on top of the relay's `robots` for a `user`; an `admin`
   * otherwise reaches every robot). A request for another robot answers 403.
   */
  robots?: readonly string[];
}

/**
 * What an app's own stage sees of a request (see `RelayOptions.stages`). `endpoint` and `caller` are
 * known only after the relay's `match` and `authorize` stages (so in `afterAuthorize` stages).
 */
export interface RelayStageContext {
  readonly requestId: string;
  readonly method: string;
  /** The request target as sent (path and query, still percent-encoded). */
  readonly target: string;
  /** A request header (lower-case name). */
  header(name: string): string | null;
  /** The request as a web `Request` (built on first use), as the hooks get it. Its body is the relay's to read. */
  webRequest(): Request;
  readonly endpoint: RelayEndpointId | undefined;
  readonly caller: RelayCaller | undefined;
  /** Headers every answer to this request carries; a stage may add its own (e.g. a trace id). */
  readonly headers: Record<string, string>;
}

/** What `next()` resolves to in an app's stage: the answer on its way out (its status is final). Opaque otherwise. */
export interface RelayOutcome {
  readonly status: number;
}

/**
 * An app's own stage, in the onion style of hono's middleware: it runs before the rest of the
 * pipeline, calls `next()` at most once, and returns what `next()` resolved to. To refuse, it throws
 * a `RelayError` (answered as `{ detail }` and logged like the relay's own refusals).
 */
export type RelayStage = (ctx: RelayStageContext, next: () => Promise<RelayOutcome>) => Promise<RelayOutcome>;


/**
 * Decision of the rate-limit hook: `true` lets the request through; `false` or
 * `{ allowed: false, retryAfterSeconds }` answers 429 (with `Retry-After` when given).
 */
export type RateLimitDecision = boolean | { allowed: boolean; retryAfterSeconds?: number };

/**
 * One structured log line. Never contains the API key, the grant secret, a body or a header value
 * (other than the refused `Origin`). One entry per request: `info` when answered, `warn` for a
 * refusal (4xx), `error` for a failure (5xx); plus an `error` entry when a body was cut for holding
 * a secret, and a `warn` at creation without `authorize` (or with `authorize` and no `secret`).
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
   *
   * The request has the caller's method, URL and headers, no body. Served from Node (`serveRelay`,
   * `toNodeHandler`) it is a `Request` whose real object is built only when the hook uses more than
   * `method`, `url` and `headers` (a `new Request` costs an `AbortSignal`, the largest part of a hook's
   * cost); it still works with `new Request(request)`, `fetch(request)` and `clone()`.
   */
  authorize?: (request: Request) => RelayCaller | null | false | Promise<RelayCaller | null | false>;
  /**
   * The robot ids a caller of role `user` may reach, or `'*'` for every robot on the key. Required
   * with `authorize` (`createRelay` throws without it). Checked on every route (403 otherwise).
   */
  robots?: readonly string[] | '*';
  /** Longest wait for `authorize` in ms (503 `{ detail }` beyond, the request goes no further). Default 10000. */
  authorizeTimeoutMs?: number;
  /**
   * Concurrent realtime sessions (v1 signaling and OpenAI calls) one `user` may hold open through
   * this relay instance; one more answers 429 with `Retry-After`. Default 3. Admins are not limited.
   */
  maxSessionsPerUser?: number;
  /** How long a session counts against `maxSessionsPerUser` (the relay never sees a call end; a failed signaling or a deletion (E15) gives the slot back sooner), in ms. Default 900000 (15 min). */
  sessionHoldMs?: number;
  /**
   * Reports (E11–E13) for a `user`: the default window when the request names none, and the widest
   * window allowed, in days (a wider one answers 422). Default `{ defaultDays: 7, maxDays: 31 }`.
   */
  reportWindow?: { defaultDays?: number; maxDays?: number };
  /** Most bytes of an upstream JSON answer the relay reads to scope it (502 `{ detail }` beyond). Default 4194304 (4 MiB). */
  maxUpstreamJsonBytes?: number;
  /**
   * Session fields a browser may set on the OpenAI-compatible routes (paths into `session`, dot
   * separated), added to the default `audio.output.voice`, `audio.input.transcription`,
   * `audio.input.turn_detection`, `audio.input.noise_reduction`. `instructions`, `tools`, `tool_choice`,
   * `prompt` and `tracing` can never be allowed. Everything else the browser sends is dropped.
   */
  openaiSessionFields?: readonly string[];
  /**
   * An app's own stages (tracing, its own checks), inserted into the relay's pipeline: `before` run
   * right after the relay's logging stage (their refusals are answered and logged like the relay's),
   * before CORS and routing; `afterAuthorize` run once the endpoint and the caller are known, before
   * the rate limit and the body. See docs/relay.md.
   */
  stages?: { before?: readonly RelayStage[]; afterAuthorize?: readonly RelayStage[] };
  /**
   * Host names (any port) the relay answers to, as the request's `Host` names it (403 otherwise):
   * the DNS-rebinding defence of a relay on a developer machine. `'loopback'` stands for `localhost`,
   * `*.localhost`, `127.0.0.0/8` and `[::1]`. Default: any host (a relay mounted in an app answers
   * under the app's host). `kb-voice relay` and the demo pass `['loopback']` plus `--allow-host`.
   */
  allowedHosts?: readonly string[];
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
   * Secret for the session grants of role `user` (see `SessionGrants`), one per deployment: two apps
   * sharing one API key must set different secrets, or a user id of one reaches the other's sessions.
   * Default: derived from `apiKey` (the relay warns at creation when `authorize` is given without it).
   * At least 16 characters (a random value; `createRelay` throws on a shorter one): answers are
   * scanned for it like the key, so a short common string would withhold ordinary answers.
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

/** One request's span, as the tracer behind the relay's `tracing` option made it. */
export interface RelaySpan {
  /** The `traceparent` the upstream request carries: this span's (undefined: pass the caller's on as it is). */
  readonly traceparent: string | undefined;
  /** The request is over: the status the caller got, and why it was refused or failed. */
  end(status: number, reason?: string): void;
}

/**
 * What makes the relay's spans: `kb-voice/otel`'s `relayTracing()` on OpenTelemetry, or any
 * other tracer. The relay itself depends on no tracing library.
 */
export interface RelayTracer {
  start(request: { method: string; endpoint: string | undefined; traceparent: string | null; requestId: string }): RelaySpan;
}
