import { compose, type Stage } from './compose.js';
import { RelayContext, type RelayConfig } from './context.js';
import { Cors } from './cors.js';
import { SessionGrants } from './grant.js';
import { createLog, requestIdOf } from './log.js';
import { RELAY_HANDLER, type Incoming, type Reply } from './message.js';
import { isNode, nodeTransport } from './node-fetch.js';
import { compileRoutes, normalizePrefix } from './router.js';
import { RELAY_ROUTES, type RelayRoute } from './routes.js';
import { authorize } from './stages/authorize.js';
import { cors } from './stages/cors.js';
import { guard } from './stages/guard.js';
import { log } from './stages/log.js';
import { match } from './stages/match.js';
import { parse } from './stages/parse.js';
import { policy } from './stages/policy.js';
import { rateLimit } from './stages/rate-limit.js';
import { traceStage } from './stages/trace.js';
import type { Relay, RelayOptions } from './types.js';
import { Upstream } from './upstream.js';
import { fromFetch, fromRequest, toResponse } from './web.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BODY_BYTES = 65_536;

/**
 * The relay's stages in order (see each file in `stages/`): `log` (answers every thrown refusal and
 * logs once) → `cors` → `match` (allowlist, 404) → `authorize` (401) → `rateLimit` (429) → `parse`
 * (shared schemas: 422, 413, 415) → `guard` (the upstream answer's way out, secret-scanned) →
 * `policy` (the route's, per role; the one `forward()` reaches the upstream). No refusal reaches
 * the upstream.
 */
export const RELAY_STAGES: readonly Stage[] = [log, cors, match, authorize, rateLimit, parse, guard, policy];

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

/**
 * Creates the backend relay: a web-standard `fetch(request)` handler that lets a browser reach the
 * realtime endpoints (`RELAY_ENDPOINT_IDS`) without ever holding the API key. It mounts unchanged in
 * Node (`serveRelay`, `toNodeHandler` for Express/Fastify), Hono, Next.js route handlers, Workers
 * and other fetch runtimes.
 *
 * Each request goes through {@link RELAY_STAGES}; every refusal is a thrown `RelayError` answered
 * by the `log` stage as `{ detail }`. The upstream gets only `Authorization: Bearer <apiKey>` and
 * allowlisted headers, within `timeoutMs` (504; failures 502). Every request is logged once (see
 * `RelayLogEntry`). Without `authorize` every caller is `admin` (local QA only): a warning is logged
 * at creation.
 */
export function createRelay(options: RelayOptions): Relay {
  return createRelayWithRoutes(options, RELAY_ROUTES);
}

/** `createRelay` over another route table (tests of route kinds the table does not have yet). Not public. */
export function createRelayWithRoutes(options: RelayOptions, routes: readonly RelayRoute[]): Relay {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Relay apiKey is required');
  const secrets = [options.apiKey, ...(options.secret ? [options.secret] : [])];
  const logger = createLog(options.logger, secrets);
  const config: RelayConfig = {
    prefix: normalizePrefix(options.prefix ?? '/api/voice'),
    table: compileRoutes(routes),
    cors: new Cors(options.allowedOrigins ?? []),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
    grants: new SessionGrants(options.secret ?? options.apiKey),
    upstream: new Upstream({
      base: upstreamBase(options.upstream),
      apiKey: options.apiKey,
      secrets,
      timeoutMs: positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      transport: options.fetch ? fromFetch(options.fetch) : isNode() ? nodeTransport : fromFetch((url, init) => fetch(url, init)),
      onLeak: (requestId) => logger({ level: 'error', message: 'upstream body contained a secret; answer withheld or stream cut', requestId }),
    }),
    log: logger,
    logsInfo: options.logger !== undefined,
    authorize: options.authorize,
    rateLimit: options.rateLimit,
  };
  if (!options.authorize) logger({ level: 'warn', message: 'no authorize hook: every caller is treated as admin (local QA only); pass authorize in production' });

  const run = compose(options.tracing ? [RELAY_STAGES[0]!, traceStage({ tracer: options.tracing }), ...RELAY_STAGES.slice(1)] : RELAY_STAGES);
  // The `log` stage never lets an upstream answer out (it fails the request instead).
  const handle = (request: Incoming) => run(new RelayContext(config, request, requestIdOf(request))) as Promise<Reply>;
  return {
    prefix: config.prefix,
    async fetch(request: Request, env?: unknown): Promise<Response> {
      return toResponse(await handle(fromRequest(request, env)));
    },
    // Runtime adapters (node.ts) hand requests over without web objects.
    [RELAY_HANDLER]: handle,
  } as Relay;
}
