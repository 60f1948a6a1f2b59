import { endpoints, openaiEndpoints, openaiRelayEndpoints, sourcesRelayEndpoints } from '../schemas/index.js';
import type { CompiledRoute, RelayRoute, RouteMatch, RouteTable, Segment } from './route-types.js';
import type { RelayEndpointId } from './types.js';

/**
 * Matching a raw request path to the route table: canonical paths only, literal segments and
 * methods compared exactly, parameters never taking a reserved literal.
 */

const compile = (template: string): Segment[] =>
  template
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('{') && s.endsWith('}') ? { literal: null, param: s.slice(1, -1) } : { literal: s, param: null }));


/**
 * How many matches a table remembers. A relay mostly sees the same few paths (one robot, its
 * sessions), so matching each of them once spares the path decoding and comparing on every later
 * request; when full the memory starts over (paths off the allowlist are never remembered).
 */
export const MATCH_CACHE_SIZE = 256;

export function compileRoutes(routes: readonly RelayRoute[]): RouteTable {
  const compiled: CompiledRoute[] = routes.map((route) => ({ route, segments: compile(route.endpoint.path) }));
  const buckets = new Map<string, CompiledRoute[]>();
  for (const c of compiled) {
    const key = `${c.route.endpoint.method} ${c.segments.length}`;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(c);
    else buckets.set(key, [c]);
  }
  return { routes: compiled, buckets, found: new Map() };
}

/**
 * Every literal segment of every endpoint path (lower case). A parameter may not take one of these
 * values, so a path like `/v1/robots/session.messages` can never be read by the upstream as another
 * endpoint than the one the relay matched.
 */
const RESERVED = new Set([...Object.values(endpoints), ...Object.values(openaiEndpoints), ...Object.values(openaiRelayEndpoints), ...Object.values(sourcesRelayEndpoints)].flatMap((e) => compile(e.path).flatMap((s) => (s.literal !== null ? [s.literal.toLowerCase()] : []))));

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


/** Whether the raw path lies under `prefix` (segment-wise). */
export const underPrefix = (rawPath: string, prefix: string) => prefix === '' || rawPath === prefix || rawPath.startsWith(`${prefix}/`);

/**
 * Matches `method` and the raw pathname against the allowlist under `prefix`. Literal segments and
 * methods compare case-sensitively, so `/V1/Robots/...` or `patch` match nothing.
 */
export function matchRoute(method: string, rawPath: string, prefix: string, table: RouteTable): RouteMatch | null {
  const key = `${prefix} ${method} ${rawPath}`;
  const known = table.found.get(key);
  if (known) return known;
  const found = matchFresh(method, rawPath, prefix, table);
  if (found) {
    if (table.found.size >= MATCH_CACHE_SIZE) table.found.clear();
    table.found.set(key, found);
  }
  return found;
}

/** The match itself (frozen: remembered matches are shared by the requests for the same path). */
function matchFresh(method: string, rawPath: string, prefix: string, table: RouteTable): RouteMatch | null {
  if (!underPrefix(rawPath, prefix)) return null;
  const rest = canonicalSegments(rawPath.slice(prefix.length) || '/');
  if (!rest) return null;
  const candidates = table.buckets.get(`${method} ${rest.length}`);
  if (!candidates) return null;
  for (const { route, segments } of candidates) {
    let i = 0;
    for (; i < segments.length; i++) {
      const { literal } = segments[i]!;
      if (literal !== null ? literal !== rest[i] : RESERVED.has(rest[i]!.toLowerCase())) break;
    }
    if (i < segments.length) continue;
    // Parameter names come from the table (never `__proto__`), values from the caller.
    const params: Record<string, string> = {};
    for (let j = 0; j < segments.length; j++) if (segments[j]!.param !== null) params[segments[j]!.param!] = rest[j]!;
    return Object.freeze({ id: route.endpoint.id as RelayEndpointId, route, params: Object.freeze(params) });
  }
  return null;
}

/** The methods allowed on a path, for CORS preflight answers. */
export function allowedMethods(rawPath: string, prefix: string, table: RouteTable): string[] {
  return [...new Set(table.routes.map((r) => r.route.endpoint.method))].filter((m) => matchRoute(m, rawPath, prefix, table) !== null);
}
