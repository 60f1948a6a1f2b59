import { endpoints, type Endpoint } from '../schemas/index.js';
import type { RelayEndpointId } from './types.js';

/** The endpoints the relay lets through; everything else answers 404 without reaching the upstream. */
export const RELAY_ENDPOINT_IDS: readonly RelayEndpointId[] = ['RS', 'E1', 'E11', 'E12', 'E13', 'E14', 'E17', 'E19', 'E6', 'E15'];

type Segment = { literal: string } | { param: string };

interface Route {
  id: RelayEndpointId;
  endpoint: Endpoint;
  segments: Segment[];
}

/** A request path matched to an allowed endpoint, with its decoded path parameters. */
export interface RouteMatch {
  id: RelayEndpointId;
  endpoint: Endpoint;
  params: Record<string, string>;
}

/**
 * Characters a decoded path segment may hold. Anything else (`/`, `\`, `%`, NUL, spaces...) means the
 * segment was crafted to be re-interpreted somewhere downstream, so it matches no route.
 */
const SAFE_SEGMENT = /^[A-Za-z0-9._~-]{1,200}$/;

const compile = (template: string): Segment[] =>
  template
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));

const routes: Route[] = RELAY_ENDPOINT_IDS.map((id) => ({ id, endpoint: endpoints[id], segments: compile(endpoints[id].path) }));

/**
 * Every literal segment of every endpoint path (lower case). A parameter may not take one of these
 * values, so a path like `/v1/robots/session.messages` can never be read by the upstream as another
 * endpoint than the one the relay matched.
 */
const RESERVED = new Set(
  Object.values(endpoints).flatMap((e) => compile(e.path).flatMap((s) => ('literal' in s ? [s.literal.toLowerCase()] : []))),
);

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

/**
 * Matches `method` and the raw pathname against the allowlist under `prefix`. Literal segments and
 * methods compare case-sensitively, so `/V1/Robots/...` or `patch` match nothing.
 */
export function matchRoute(method: string, rawPath: string, prefix: string): RouteMatch | null {
  const segments = canonicalSegments(rawPath);
  if (!segments) return null;
  const prefixSegments = prefix === '' ? [] : prefix.slice(1).split('/');
  if (segments.length < prefixSegments.length || prefixSegments.some((s, i) => segments[i] !== s)) return null;
  const rest = segments.slice(prefixSegments.length);
  for (const route of routes) {
    if (route.endpoint.method !== method || route.segments.length !== rest.length) continue;
    const params: Record<string, string> = {};
    const ok = route.segments.every((seg, i) => {
      const value = rest[i]!;
      if ('literal' in seg) return seg.literal === value;
      if (RESERVED.has(value.toLowerCase())) return false;
      params[seg.param] = value;
      return true;
    });
    if (ok) return { id: route.id, endpoint: route.endpoint, params };
  }
  return null;
}

/** The methods allowed on a path, for CORS preflight answers. */
export function allowedMethods(rawPath: string, prefix: string): string[] {
  return [...new Set(routes.map((r) => r.endpoint.method))].filter((m) => matchRoute(m, rawPath, prefix) !== null);
}
