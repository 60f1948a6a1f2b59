import { fillPath, objectToQuery, parseRequest, queryFromUrl, type Endpoint } from '../schemas/index.js';
import { readBoundedBody } from './body.js';
import { Cors } from './cors.js';
import { errorReply, jsonReply, RelayError, describeDetail } from './errors.js';
import { SessionGrants } from './grant.js';
import { createLog, requestIdOf } from './log.js';
import type { Incoming, Reply } from './message.js';
import { isNode, nodeTransport } from './node-fetch.js';
import { allowedMethods, compileRoutes, matchRoute, normalizePrefix, RELAY_ROUTES, type RelayRoute, type RouteMatch } from './routes.js';
import type { Forwarding } from './scope.js';
import type { RateLimitDecision, Relay, RelayCaller, RelayEndpointId, RelayOptions, RelayRole } from './types.js';
import { describe, Upstream } from './upstream.js';
import { fromFetch, fromRequest, toResponse } from './web.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BODY_BYTES = 65_536;

/** Caller used when no `authorize` hook is given (local QA only). */
const LOCAL_ADMIN: RelayCaller = { userIdentifier: 'local-admin', role: 'admin' };

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

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

/** The pipeline of each relay, for its runtime adapters (node.ts takes it to skip web objects). */
const pipelines = new WeakMap<Relay, (request: Incoming) => Promise<Reply>>();
export const pipelineOf = (relay: Relay) => pipelines.get(relay);

/**
 * Creates the backend relay: a web-standard `fetch(request)` handler that lets a browser reach the
 * realtime endpoints (`RELAY_ENDPOINT_IDS`) without ever holding the API key. It mounts unchanged in
 * Node (`serveRelay`, `toNodeHandler` for Express/Fastify), Hono, Next.js route handlers, Workers
 * and other fetch runtimes.
 *
 * One pipeline per request, every refusal a thrown `RelayError` answered in one place:
 * CORS (a foreign `Origin` 403) → allowlist on method and canonical raw path under `prefix` (404) →
 * `authorize` (null: 401) → `rateLimit` (429) → `parseRequest` of path, query and JSON body with the
 * shared schemas (422; body cap 413; non-JSON body 415) → role scoping (`forUser` policies) →
 * upstream call with only `Authorization: Bearer <apiKey>` and allowlisted headers within
 * `timeoutMs` (504; failures 502) → the reply through the secret guard. None of the refusals
 * reaches the upstream. Every request is logged once (see `RelayLogEntry`).
 *
 * Without `authorize` every caller is `admin` (local QA only): a warning is logged at creation.
 */
export function createRelay(options: RelayOptions): Relay {
  return createRelayWithRoutes(options, RELAY_ROUTES);
}

/** `createRelay` over another route table (tests of route kinds the table does not have yet). Not public. */
export function createRelayWithRoutes(options: RelayOptions, routes: readonly RelayRoute[]): Relay {
  const table = compileRoutes(routes);
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Relay apiKey is required');
  const prefix = normalizePrefix(options.prefix ?? '/api/voice');
  const cors = new Cors(options.allowedOrigins ?? []);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const secrets = [options.apiKey, ...(options.secret ? [options.secret] : [])];
  const grants = new SessionGrants(options.secret ?? options.apiKey);
  const log = createLog(options.logger, secrets);
  const upstream = new Upstream({
    base: upstreamBase(options.upstream),
    apiKey: options.apiKey,
    secrets,
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    transport: options.fetch ? fromFetch(options.fetch) : isNode() ? nodeTransport : fromFetch((url, init) => fetch(url, init)),
    onLeak: (requestId) => log({ level: 'error', message: 'upstream body contained a secret; answer withheld or stream cut', requestId }),
  });
  if (!options.authorize) log({ level: 'warn', message: 'no authorize hook: every caller is treated as admin (local QA only); pass authorize in production' });

  interface Trace {
    requestId: string;
    /** Headers of every answer: the request id, and CORS for an allowed origin. Set at construction (cheaper than mutating a Response). */
    headers: Record<string, string>;
    endpoint?: RelayEndpointId;
    role?: RelayRole;
  }

  /** Path, query and body of the request, parsed with the shared parser; refusals thrown. */
  async function parse(request: Incoming, search: string, match: RouteMatch) {
    const { endpoint, textBody } = match.route;
    const type = request.header('content-type') ?? '';
    let bodyText: string | undefined;
    if (endpoint.body || textBody) {
      bodyText = await readBoundedBody(request, maxBodyBytes);
      // Requiring JSON (or the route's own types) also forces a CORS preflight on cross-site browser requests.
      const accepted = textBody ? textBody.contentTypes.some((t) => type.split(';')[0]!.trim().toLowerCase() === t) : JSON_TYPE.test(type);
      const expected = textBody ? textBody.contentTypes.join(' or ') : 'application/json';
      if (bodyText.trim() !== '' && !accepted) throw new RelayError(415, `Content-Type must be ${expected}`, `content-type ${JSON.stringify(type || '(none)')} is not ${expected}`);
    }
    const parsed = parseRequest(endpoint as Endpoint, { params: match.params, query: queryFromUrl(endpoint, new URLSearchParams(search)), ...(endpoint.body && bodyText !== undefined ? { bodyText } : {}) });
    const detail = parsed.ok ? [] : [...parsed.detail];
    if (textBody && !bodyText?.trim()) detail.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    if (!parsed.ok || detail.length) throw new RelayError(422, detail, describeDetail(detail));
    // The content type as sent, parameters included (a multipart body needs its boundary).
    const text = textBody && bodyText !== undefined ? { type: type.trim(), text: bodyText } : undefined;
    return { ...(parsed.value as { params: Record<string, string>; query: Record<string, unknown> | undefined; body: Record<string, unknown> | undefined }), text };
  }

  async function handle(request: Incoming, trace: Trace): Promise<Reply> {
    const { target, method } = request;
    if (!target.startsWith('/')) throw new RelayError(400, 'Bad request target', `request target ${JSON.stringify(target.slice(0, 100))} is not a path`);
    const q = target.indexOf('?');
    const rawPath = q < 0 ? target : target.slice(0, q);
    const origin = request.header('origin');

    if (method === 'OPTIONS') {
      const wanted = request.header('access-control-request-method');
      const methods = allowedMethods(rawPath, prefix, table);
      if (origin === null || wanted === null || !methods.includes(wanted)) throw new RelayError(404, 'Not found', `preflight for ${wanted ?? '(no method)'} on a path off the allowlist`);
      if (!cors.allows(origin)) throw new RelayError(403, 'Origin not allowed', `preflight from origin ${origin}, which is not in allowedOrigins`);
      return { status: 204, headers: { ...trace.headers, ...cors.preflight(origin, methods, request.header('access-control-request-headers')) }, body: null };
    }
    const match = matchRoute(method, rawPath, prefix, table);
    if (match) trace.endpoint = match.id;
    if (origin !== null && origin !== request.origin && !cors.allows(origin)) {
      throw new RelayError(403, 'Origin not allowed', `origin ${origin} is neither the relay's own (${request.origin}) nor in allowedOrigins`);
    }
    if (!match) throw new RelayError(404, 'Not found', `${method} ${rawPath.slice(0, 200)} is not on the allowlist (or not a canonical path under ${prefix || '/'})`);

    const caller = options.authorize ? await options.authorize(request.request()) : LOCAL_ADMIN;
    if (caller === null || caller === undefined) throw new RelayError(401, 'Not authenticated', 'authorize returned null');
    if (!isCaller(caller)) throw new TypeError('authorize returned an invalid caller (needs role "user" | "admin" and a non-empty userIdentifier)');
    trace.role = caller.role;

    if (options.rateLimit) {
      const decision = allowedBy(await options.rateLimit(request.request(), caller, match.id));
      if (!decision.allowed) {
        const retry = decision.retryAfterSeconds;
        throw new RelayError(429, 'Too many requests', 'rateLimit refused the request', retry !== undefined ? { 'retry-after': String(Math.ceil(retry)) } : {});
      }
    }

    const v = await parse(request, q < 0 ? '' : target.slice(q + 1), match);
    const { route } = match;
    const call: Forwarding['call'] = async (body = v.body, other) => {
      const endpoint = other?.endpoint ?? route.endpoint;
      const query = other ? other.query : v.query;
      const response = await upstream.send({
        method: endpoint.method,
        path: fillPath(other ? endpoint.path : route.upstreamPath ?? endpoint.path, other?.params ?? v.params),
        query: query && objectToQuery(query),
        body: other ? undefined : v.text ?? (body === undefined ? undefined : { type: 'application/json', text: JSON.stringify(body) }),
        caller: request,
        requestId: trace.requestId,
      });
      // The signaling answer's Location names the session resource (RT) on the upstream: the
      // caller gets it under this relay's prefix, where its PATCHes are served.
      const location = !other && route.endpoint.id === 'RS' && response.status === 201 ? response.headers.get('location') : null;
      if (location?.startsWith('/') && matchRoute('PATCH', `${prefix}${location}`, prefix, table)?.id === 'RT') trace.headers.location = `${prefix}${location}`;
      return response;
    };
    if (caller.role !== 'user' && !route.allRoles) return upstream.passThrough(await call(), trace.headers);
    return route.user({
      ...v,
      user: caller.userIdentifier,
      grants,
      prefix,
      call,
      send: (init) => upstream.send({
        method: route.endpoint.method,
        path: fillPath(route.upstreamPath ?? route.endpoint.path, v.params),
        query: init.query,
        body: init.body,
        ...(init.headers ? { headers: init.headers } : {}),
        caller: request,
        requestId: trace.requestId,
      }),
      passThrough: (response) => upstream.passThrough(response, trace.headers),
      readJson: (response, schema) => upstream.readJson(response, schema),
      json: (status, body) => jsonReply(status, body, trace.headers),
    });
  }

  async function pipeline(request: Incoming): Promise<Reply> {
    const started = Date.now();
    const requestId = requestIdOf(request.header);
    const origin = request.header('origin');
    const headers = cors.allows(origin) && request.method !== 'OPTIONS' ? { 'x-request-id': requestId, ...cors.headers(origin) } : { 'x-request-id': requestId };
    const trace: Trace = { requestId, headers };
    let reply: Reply;
    let reason: string | undefined;
    try {
      reply = await handle(request, trace);
    } catch (error) {
      reply = errorReply(error, headers);
      reason = error instanceof RelayError ? error.reason : `internal error: ${describe(error)}`;
    }
    const { status } = reply;
    // Without a logger, info entries are dropped anyway: not even built.
    if (status < 400 && !options.logger) return reply;
    log({
      level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
      message: status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'request',
      requestId: trace.requestId,
      method: request.method,
      ...(trace.endpoint ? { endpoint: trace.endpoint } : {}),
      status,
      durationMs: Date.now() - started,
      ...(trace.role ? { role: trace.role } : {}),
      ...(reason ? { reason } : {}),
    });
    return reply;
  }

  const relay: Relay = {
    prefix,
    async fetch(request: Request, env?: unknown): Promise<Response> {
      return toResponse(await pipeline(fromRequest(request, env)));
    },
  };
  pipelines.set(relay, pipeline);
  return relay;
}
