import { endpoints, openaiRelayEndpoints, type Endpoint } from '../schemas/index.js';
import { openaiClientSecret, openaiCall } from './openai.js';
import { forUser, type UserPolicy } from './scope.js';

/**
 * One entry per path the relay lets through; everything else answers 404 without reaching the
 * upstream. An entry names its endpoint in the shared table (method, path template, and the schemas
 * `parseRequest` validates with), how a caller of role `user` is scoped, and optionally the upstream
 * path it maps to (default: the same path under the upstream base). Adding a route is one entry.
 */
export interface RelayRoute<E extends Endpoint = Endpoint> {
  readonly endpoint: E;
  readonly user: UserPolicy;
  /** Upstream path template when it differs from the endpoint's (same `{name}` parameters). */
  readonly upstreamPath?: string;
  /**
   * A non-JSON body (e.g. `application/sdp`, `application/trickle-ice-sdpfrag`): read as text under
   * the body cap, required, refused (415) in any other content type, and forwarded as received with
   * its content type. The endpoint then declares no JSON `body` schema.
   */
  readonly textBody?: { readonly contentTypes: readonly string[] };
  /** The policy serves admins too (the route always rewrites the request); default: admins pass through. */
  readonly allRoles?: boolean;
}

const route = <const E extends Endpoint>(endpoint: E, user: UserPolicy, more: Pick<RelayRoute, 'upstreamPath' | 'textBody' | 'allRoles'> = {}): RelayRoute<E> => ({ endpoint, user, ...more });

/** The allowlist, written once: the type, `RELAY_ENDPOINT_IDS` and the matcher all come from it. */
export const RELAY_ROUTES = [
  route(endpoints.RS, forUser.signaling),
  route(endpoints.RT, forUser.sessionInPath, { textBody: { contentTypes: [endpoints.RT.contentType] } }),
  route(endpoints.E1, forUser.warmup),
  route(endpoints.E11, forUser.costSummary),
  route(endpoints.E12, forUser.sessionCosts),
  route(endpoints.E13, forUser.usage),
  route(endpoints.E14, forUser.sessionInQuery),
  route(endpoints.E17, forUser.message),
  route(endpoints.E19, forUser.sessionInQuery),
  route(endpoints.E6, forUser.rating),
  route(endpoints.E15, forUser.sessionInPath),
  route(openaiRelayEndpoints.OAI_SECRET, openaiClientSecret, { upstreamPath: '/v1/realtime/client_secrets', allRoles: true }),
  route(openaiRelayEndpoints.OAI_CALL, openaiCall, { upstreamPath: '/v1/realtime/calls', allRoles: true, textBody: { contentTypes: ['application/sdp', 'multipart/form-data'] } }),
] as const;

/** Identifiers of the endpoints the relay lets through. */
export type RelayEndpointId = (typeof RELAY_ROUTES)[number]['endpoint']['id'];

/** The endpoints the relay lets through, in table order. */
export const RELAY_ENDPOINT_IDS: readonly RelayEndpointId[] = RELAY_ROUTES.map((r) => r.endpoint.id);

type Segment = { literal: string } | { param: string };

const compile = (template: string): Segment[] =>
  template
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));

/** A route table ready for matching. */
export type RouteTable = { route: RelayRoute; segments: Segment[] }[];

export const compileRoutes = (routes: readonly RelayRoute[]): RouteTable => routes.map((r) => ({ route: r, segments: compile(r.endpoint.path) }));

const compiled = compileRoutes(RELAY_ROUTES);

/**
 * Every literal segment of every endpoint path (lower case). A parameter may not take one of these
 * values, so a path like `/v1/robots/session.messages` can never be read by the upstream as another
 * endpoint than the one the relay matched.
 */
const RESERVED = new Set([...Object.values(endpoints), ...Object.values(openaiRelayEndpoints)].flatMap((e) => compile(e.path).flatMap((s) => ('literal' in s ? [s.literal.toLowerCase()] : []))));

/**
 * Characters a decoded path segment may hold. Anything else (`/`, `\`, `%`, NUL, spaces...) means the
 * segment was crafted to be re-interpreted somewhere downstream, so it matches no route.
 */
const SAFE_SEGMENT = /^[A-Za-z0-9._~-]{1,200}$/;

/**
 * Splits a raw (still percent-encoded) URL pathname into decoded segments. Returns null for any
 * non-canonical path: empty segments (`//`, trailing `/`), `.`/`..` in any encoding, encoded `/` or
 * `\`, double encoding, control characters. Only canonical paths can match the allowlist.
 */
export function canonicalSegments(rawPath: string): string[] | null {
  if (!rawPath.startsWith('/')) return null;
  if (rawPath === '/') return [];
  const out: string[] = [];
  for (const part of rawPath.slice(1).split('/')) {
    let decoded = part;
    try {
      if (part.includes('%')) decoded = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (decoded === '.' || decoded === '..' || !SAFE_SEGMENT.test(decoded)) return null;
    out.push(decoded);
  }
  return out;
}

/** Normalises a configured prefix to `''` or `/a/b` (no trailing slash); throws when it is not canonical. */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed === '') return '';
  const segments = canonicalSegments(trimmed.startsWith('/') ? trimmed : `/${trimmed}`);
  if (!segments) throw new TypeError(`Invalid relay prefix: ${JSON.stringify(prefix)}`);
  return `/${segments.join('/')}`;
}

/** A request path matched to an allowed route, with its decoded path parameters. */
export interface RouteMatch {
  id: RelayEndpointId;
  route: RelayRoute;
  params: Record<string, string>;
}


/** Whether the raw path lies under `prefix` (segment-wise). */
export const underPrefix = (rawPath: string, prefix: string) => prefix === '' || rawPath === prefix || rawPath.startsWith(`${prefix}/`);

/**
 * Matches `method` and the raw pathname against the allowlist under `prefix`. Literal segments and
 * methods compare case-sensitively, so `/V1/Robots/...` or `patch` match nothing.
 */
export function matchRoute(method: string, rawPath: string, prefix: string, table: RouteTable = compiled): RouteMatch | null {
  if (!underPrefix(rawPath, prefix)) return null;
  const rest = canonicalSegments(rawPath.slice(prefix.length) || '/');
  if (!rest) return null;
  for (const { route, segments: template } of table) {
    if (route.endpoint.method !== method || template.length !== rest.length) continue;
    // A null-prototype record: parameter names come from the table, values from the caller.
    const params: Record<string, string> = Object.create(null);
    let i = 0;
    for (; i < template.length; i++) {
      const seg = template[i]!;
      const value = rest[i]!;
      if ('literal' in seg ? seg.literal !== value : RESERVED.has(value.toLowerCase())) break;
      if ('param' in seg) params[seg.param] = value;
    }
    if (i === template.length) return { id: route.endpoint.id as RelayEndpointId, route, params: { ...params } };
  }
  return null;
}

/** The methods allowed on a path, for CORS preflight answers. */
export function allowedMethods(rawPath: string, prefix: string, table: RouteTable = compiled): string[] {
  return [...new Set(table.map((r) => r.route.endpoint.method))].filter((m) => matchRoute(m, rawPath, prefix, table) !== null);
}
