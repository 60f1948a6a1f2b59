import { fillPath, objectToQuery, queryToObject, validate, type ValidationErrorItem } from '../schemas/index.js';
import { readBoundedBody } from './body.js';
import { Cors } from './cors.js';
import { Forwarder } from './forward.js';
import { createNodeTransport, isNode } from './node-fetch.js';
import { parsedUrl, REPLY } from './internal.js';
import { SessionGrants } from './grant.js';
import { errorResponse, Reply, toResponse, validationResponse } from './responses.js';
import { allowedMethods, matchRoute, normalizePrefix, type RouteMatch } from './routes.js';
import { serveUser, type ValidatedRequest } from './scope.js';
import type { RateLimitDecision, Relay, RelayCaller, RelayEndpointId, RelayOptions, RelayRole } from './types.js';
import { fetchTransport, UpstreamFailure } from './upstream.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BODY_BYTES = 65_536;

/** Caller used when no `authorize` hook is given (local QA only). */
const LOCAL_ADMIN: RelayCaller = { userIdentifier: 'local-admin', role: 'admin' };

function upstreamBase(upstream: string | URL): string {
  let url: URL;
  try {
    url = new URL(upstream);
  } catch {
    throw new TypeError('Relay upstream must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('Relay upstream must be an absolute http(s) URL');
  if (url.search || url.hash || url.username || url.password) throw new TypeError('Relay upstream must not carry a query, fragment or credentials');
  return url.href.replace(/\/+$/, '');
}

const positive = (name: string, value: number) => {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Relay option ${name} must be a positive number`);
  return value;
};

const isCaller = (c: unknown): c is RelayCaller =>
  typeof c === 'object' && c !== null &&
  ((c as RelayCaller).role === 'admin' || (c as RelayCaller).role === 'user') &&
  typeof (c as RelayCaller).userIdentifier === 'string' && (c as RelayCaller).userIdentifier.length > 0;

const allowedBy = (d: RateLimitDecision) => (typeof d === 'boolean' ? { allowed: d } : d);

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Creates the backend relay: a web-standard `fetch(request)` handler that lets a browser reach the
 * realtime endpoints (signaling RS, E1, E11–E14, E17, E19, E6, E15) without ever holding the API
 * key. It mounts unchanged in Node (see `serveRelay` / `toNodeHandler`), Hono, Next.js route
 * handlers, Cloudflare Workers and other fetch-based runtimes.
 *
 * Per request: CORS (only `allowedOrigins`; a foreign `Origin` is refused with 403) → allowlist on
 * method and canonical decoded path under `prefix` (else 404) → `authorize` (null: 401) →
 * `rateLimit` (429) → validation of path, query and JSON body with the shared schemas (422; body cap
 * 413; non-JSON body 415) → role scoping (see `serveUser`) → upstream call with only
 * `Authorization: Bearer <apiKey>` and allowlisted headers, within `timeoutMs` (504), failures 502.
 * None of these refusals reaches the upstream. Successful bodies stream through unbuffered except
 * where the relay must read them to scope them to a `user`.
 *
 * Without `authorize` every caller is `admin` (local QA only); a warning is logged at creation.
 */
export function createRelay(options: RelayOptions): Relay {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Relay apiKey is required');
  const prefix = normalizePrefix(options.prefix ?? '/api/voice');
  const cors = new Cors(options.allowedOrigins ?? []);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const secrets = [options.apiKey, ...(options.secret ? [options.secret] : [])];
  const grants = new SessionGrants(options.secret ?? options.apiKey);
  const log = options.logger ?? (() => {});
  const scrub = (text: string) => secrets.reduce((t, s) => t.split(s).join('[redacted]'), text);
  const upstream = new Forwarder({
    base: upstreamBase(options.upstream),
    apiKey: options.apiKey,
    secrets,
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    transport: options.fetch ? fetchTransport(options.fetch) : isNode() ? createNodeTransport() : fetchTransport((r) => fetch(r)),
    log,
  });
  const authorize = options.authorize ?? (() => LOCAL_ADMIN);
  if (!options.authorize) log({ level: 'warn', message: 'no authorize hook: every caller is treated as admin (local QA only)' });

  /** Validates path, query and body; returns the 4xx response on failure. */
  async function validateRequest(request: Request, url: URL, match: RouteMatch): Promise<ValidatedRequest | Reply> {
    const { endpoint } = match;
    const params = validate(endpoint.params, match.params, 'path');
    if (!params.ok) return validationResponse(params.detail);
    let query: Record<string, unknown> | undefined;
    if (endpoint.query) {
      const q = validate(endpoint.query, queryToObject(endpoint.query, url.searchParams), 'query');
      if (!q.ok) return validationResponse(q.detail);
      query = q.value as Record<string, unknown>;
    } else if ([...url.searchParams.keys()].length > 0) {
      const extra: ValidationErrorItem[] = [...new Set(url.searchParams.keys())].map((k) => ({ loc: ['query', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
      return validationResponse(extra);
    }
    let body: Record<string, unknown> | undefined;
    if (endpoint.body) {
      const read = await readBoundedBody(request, maxBodyBytes);
      if (!read.ok) return read.reason === 'too_large' ? errorResponse(413, `Request body exceeds ${maxBodyBytes} bytes`) : errorResponse(400, 'Unreadable request body');
      if (read.text.trim() === '') {
        if (endpoint.bodyRequired !== false) return validationResponse([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
      } else {
        // Requiring JSON also forces a CORS preflight on cross-site browser requests.
        if (!JSON_TYPE.test(request.headers.get('content-type') ?? '')) return errorResponse(415, 'Content-Type must be application/json');
        let raw: unknown;
        try {
          raw = JSON.parse(read.text);
        } catch {
          return validationResponse([{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }]);
        }
        const b = validate(endpoint.body, raw, 'body');
        if (!b.ok) return validationResponse(b.detail);
        body = b.value as Record<string, unknown>;
      }
    }
    return { request, match, params: params.value as Record<string, string>, query, body };
  }

  async function handle(request: Request, info: { endpoint?: RelayEndpointId; role?: RelayRole }): Promise<Reply> {
    const url = parsedUrl(request);
    const origin = request.headers.get('origin');

    if (request.method === 'OPTIONS') {
      const wanted = request.headers.get('access-control-request-method');
      const methods = allowedMethods(url.pathname, prefix);
      if (origin === null || wanted === null || !methods.includes(wanted)) return errorResponse(404, 'Not found');
      if (!cors.allows(origin)) return errorResponse(403, 'Origin not allowed');
      return new Reply(204, cors.preflight(origin, methods, request.headers.get('access-control-request-headers')), null);
    }
    if (origin !== null && origin !== url.origin && !cors.allows(origin)) return errorResponse(403, 'Origin not allowed');

    const match = matchRoute(request.method, url.pathname, prefix);
    if (!match) return errorResponse(404, 'Not found');
    info.endpoint = match.id;

    const caller = await authorize(request);
    if (caller === null || caller === undefined) return errorResponse(401, 'Not authenticated');
    if (!isCaller(caller)) throw new TypeError('authorize returned an invalid caller (needs role "user" | "admin" and a non-empty userIdentifier)');
    info.role = caller.role;

    if (options.rateLimit) {
      const decision = allowedBy(await options.rateLimit(request, caller, match.id));
      if (!decision.allowed) {
        const retry = decision.retryAfterSeconds;
        return errorResponse(429, 'Too many requests', retry !== undefined ? { 'retry-after': String(Math.ceil(retry)) } : undefined);
      }
    }

    const v = await validateRequest(request, url, match);
    if (v instanceof Reply) return v;

    if (caller.role === 'user') return serveUser(v, caller.userIdentifier, grants, upstream);
    const path = fillPath(match.endpoint.path, v.params);
    return upstream.passThrough(await upstream.send(request, match.endpoint.method, path, v.query && objectToQuery(v.query), v.body));
  }

  /** The answer to one request, before it becomes a web `Response` (or is written by the Node adapter). */
  async function reply(request: Request): Promise<Reply> {
    const started = Date.now();
    const info: { endpoint?: RelayEndpointId; role?: RelayRole } = {};
    let response: Reply;
    try {
      response = await handle(request, info);
    } catch (error) {
      response = failure(error);
      log({ level: 'error', message: 'request failed', method: request.method, ...info, status: response.status, error: scrub(describe(error)) });
    }
    const origin = request.headers.get('origin');
    if (cors.allows(origin) && request.method !== 'OPTIONS') Object.assign(response.headers, cors.headers(origin));
    log({ level: 'info', message: 'request', method: request.method, ...info, status: response.status, durationMs: Date.now() - started });
    return response;
  }

  return {
    prefix,
    async fetch(request: Request): Promise<Response> {
      return toResponse(await reply(request));
    },
    [REPLY]: reply,
  } as Relay;
}

function failure(error: unknown): Reply {
  if (error instanceof UpstreamFailure) {
    if (error.kind === 'timeout') return errorResponse(504, 'Upstream timed out');
    if (error.kind === 'invalid_response') return errorResponse(502, 'Invalid upstream response');
    return errorResponse(502, 'Upstream unreachable');
  }
  return errorResponse(500, 'Internal relay error');
}

/** Error text for logs: names and messages down the cause chain (scrubbed by the caller). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(' <- ');
}
