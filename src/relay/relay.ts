import { AllowedOrigins } from './allowed-origins.js';
import { compose, type Stage } from './compose.js';
import { RelayContext } from './context.js';
import { SessionGrants } from './grant.js';
import { createLog, requestIdOf } from './log-format.js';
import { RELAY_HANDLER, type Incoming, type Reply } from './message.js';
import { isNode, nodeUpstreamClient } from './node/node-fetch.js';
import { checkRelayOptions } from './options-check.js';
import { openaiSessionPaths } from './policies/openai.js';
import type { RelayRoute, RelayServices } from './route-types.js';
import { compileRoutes, normalizePrefix } from './router.js';
import { RELAY_ROUTES, RELAY_TABLE } from './routes.js';
import { SessionSlots } from './session-slots.js';
import { appStages } from './stages/app.js';
import { authorizeStage } from './stages/authorize.js';
import { corsStage } from './stages/cors.js';
import { guardStage } from './stages/guard.js';
import { hostStage } from './stages/host.js';
import { logStage } from './stages/log.js';
import { matchStage } from './stages/match.js';
import { parseStage } from './stages/parse.js';
import { policyStage } from './stages/policy.js';
import { rateLimitStage } from './stages/rate-limit.js';
import { traceStage } from './stages/trace.js';
import type { Relay, RelayOptions } from './types.js';
import { Upstream } from './upstream.js';
import { fromFetch, fromRequest, toResponse } from './web.js';

/** Shortest `secret` accepted (characters). */
const MIN_SECRET_LENGTH = 16;

/** Defaults of the documented options (docs/relay.md). */
export const RELAY_DEFAULTS = Object.freeze({
  prefix: '/api/voice',
  timeoutMs: 30_000,
  maxBodyBytes: 65_536,
  authorizeTimeoutMs: 10_000,
  maxSessionsPerUser: 3,
  sessionHoldMs: 900_000,
  reportDefaultDays: 7,
  reportMaxDays: 31,
  maxUpstreamJsonBytes: 4_194_304,
});

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

function robotsOf(robots: RelayOptions['robots'], hasAuthorize: boolean): ReadonlySet<string> | '*' {
  if (robots === undefined) {
    if (hasAuthorize) throw new TypeError("Relay option robots is required with authorize: the robot ids a user may reach, or '*' for every robot on the key");
    return '*';
  }
  if (robots === '*') return robots;
  if (!Array.isArray(robots) || !robots.every((r) => typeof r === 'string' && r !== '')) throw new TypeError("Relay option robots must be '*' or an array of robot ids");
  return new Set(robots);
}

/**
 * Creates the backend relay: a web-standard `fetch(request)` handler that lets a browser reach the
 * realtime endpoints (`RELAY_ENDPOINT_IDS`) without ever holding the API key. It mounts unchanged in
 * Node (`serveRelay`, `toNodeHandler` for Express/Fastify), Hono, Next.js route handlers, Workers
 * and other fetch runtimes.
 *
 * Each request goes through the stages, outermost first: `log` (answers every thrown refusal as
 * `{ detail }` and logs once) → the app's `stages.before` → `host` (with `allowedHosts`) → `cors` →
 * `match` (allowlist, 404) → `authorize` (401, robots 403) → the app's `stages.afterAuthorize` →
 * `rateLimit` (429) → `parse` (shared schemas: 422, 413, 415) → `guard` (the upstream answer's way
 * out, secret-scanned) → `policy` (the route's, per role; the one `forward()` reaches the upstream).
 * No refusal reaches the upstream. Without `authorize` every caller is `admin` (local QA only): a
 * warning is logged at creation; with it, `robots` is required.
 */
export function createRelay(options: RelayOptions): Relay {
  return createRelayWithRoutes(options, RELAY_ROUTES);
}

/** `createRelay` over another route table (tests of route kinds the table does not have yet). Not public. */
export function createRelayWithRoutes(options: RelayOptions, routes: readonly RelayRoute[]): Relay {
  checkRelayOptions(options);
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Relay apiKey is required');
  const robots = robotsOf(options.robots, options.authorize !== undefined);
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret.length < MIN_SECRET_LENGTH)) {
    // Short, it is a weak grant key, and every answer is scanned for it: a secret "s" withholds every answer holding an s.
    throw new TypeError(`Relay option secret must be a string of at least ${MIN_SECRET_LENGTH} characters (one random value per deployment)`);
  }
  const secrets = [options.apiKey, ...(options.secret ? [options.secret] : [])];
  const logger = createLog(options.logger, secrets);
  const prefix = normalizePrefix(options.prefix ?? RELAY_DEFAULTS.prefix);
  const table = routes === RELAY_ROUTES ? RELAY_TABLE : compileRoutes(routes);
  const upstream = new Upstream({
    base: upstreamBase(options.upstream),
    apiKey: options.apiKey,
    secrets,
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? RELAY_DEFAULTS.timeoutMs),
    client: options.fetch ? fromFetch(options.fetch) : isNode() ? nodeUpstreamClient : fromFetch((url, init) => fetch(url, init)),
    onLeak: (requestId) => logger({ level: 'error', message: 'upstream body contained a secret; answer withheld or stream cut', requestId }),
  });
  const reportMax = positive('reportWindow.maxDays', options.reportWindow?.maxDays ?? RELAY_DEFAULTS.reportMaxDays);
  const services: RelayServices = {
    prefix,
    table,
    upstream,
    grants: new SessionGrants(options.secret ?? options.apiKey),
    slots: new SessionSlots(positive('maxSessionsPerUser', options.maxSessionsPerUser ?? RELAY_DEFAULTS.maxSessionsPerUser), positive('sessionHoldMs', options.sessionHoldMs ?? RELAY_DEFAULTS.sessionHoldMs)),
    reports: {
      defaultDays: Math.min(positive('reportWindow.defaultDays', options.reportWindow?.defaultDays ?? RELAY_DEFAULTS.reportDefaultDays), reportMax),
      maxDays: reportMax,
      maxJsonBytes: positive('maxUpstreamJsonBytes', options.maxUpstreamJsonBytes ?? RELAY_DEFAULTS.maxUpstreamJsonBytes),
    },
    openaiSessionFields: openaiSessionPaths(options.openaiSessionFields),
  };
  if (!options.authorize) logger({ level: 'warn', message: 'no authorize hook: every caller is treated as admin (local QA only); pass authorize in production' });
  else if (!options.secret) logger({ level: 'warn', message: 'authorize without a secret: session grants are keyed by the API key, so another deployment on the same key accepts them; set a secret per deployment' });

  const stages: Stage[] = [
    logStage({ log: logger, logsInfo: options.logger !== undefined, prefix, table }),
    // Right after log, so the span sees every reply (refusals included) and the upstream call is its child.
    ...(options.tracing ? [traceStage({ tracer: options.tracing, prefix, table })] : []),
    ...appStages(options.stages?.before, 'before'),
    ...(options.allowedHosts ? [hostStage(options.allowedHosts)] : []),
    corsStage({ origins: new AllowedOrigins(options.allowedOrigins ?? []), prefix, table }),
    matchStage({ prefix, table }),
    authorizeStage({ authorize: options.authorize, robots, timeoutMs: positive('authorizeTimeoutMs', options.authorizeTimeoutMs ?? RELAY_DEFAULTS.authorizeTimeoutMs) }),
    ...appStages(options.stages?.afterAuthorize, 'afterAuthorize'),
    ...(options.rateLimit ? [rateLimitStage(options.rateLimit)] : []),
    parseStage({ maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes ?? RELAY_DEFAULTS.maxBodyBytes) }),
    guardStage(upstream),
    policyStage(),
  ];
  const run = compose(stages);
  // The `log` stage never lets an upstream answer out (it fails the request instead).
  const handle = (request: Incoming) => run(new RelayContext(services, request, requestIdOf(request))) as Promise<Reply>;
  return {
    prefix,
    async fetch(request: Request, env?: unknown): Promise<Response> {
      return toResponse(await handle(fromRequest(request, env)));
    },
    // Runtime adapters (node/node.ts) hand requests over without web objects.
    [RELAY_HANDLER]: handle,
  } as Relay;
}
