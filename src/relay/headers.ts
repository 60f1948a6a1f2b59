import { containsSecret, type Secrets } from './secret-scan.js';
import { isTraceparent, isTracestate } from './trace-context.js';

/**
 * What crosses the relay in headers. Both directions use allowlists, so credentials (`Authorization`,
 * `Cookie`, `Set-Cookie`), hop-by-hop headers (`Connection`, `Keep-Alive`, `Transfer-Encoding`,
 * `Upgrade`, `TE`, `Trailer`, `Proxy-*`), forwarding headers (`Forwarded`, `X-Forwarded-*`) and any
 * internal header of the upstream are dropped by construction.
 */

type HeaderGetter = (name: string) => string | null;

/**
 * Caller headers passed to the upstream (unless the caller's `Connection` header names them). `x-request-id` is the relay's request id;
 * `traceparent`/`tracestate` (W3C Trace Context) carry the caller's trace on when valid (trace-context.ts; the relay's trace stage
 * puts its own span in between).
 */
export const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'user-agent', 'x-request-id', 'traceparent', 'tracestate'] as const;

/** The headers of `FORWARDED_REQUEST_HEADERS` copied as they are; the trace headers are checked first. */
const COPIED_REQUEST_HEADERS = FORWARDED_REQUEST_HEADERS.filter((h) => h !== 'traceparent' && h !== 'tracestate');

/**
 * Upstream response headers returned to the caller. `content-encoding` is not (the body is never
 * encoded on the way out); `content-length` only for an unencoded body (see upstream.ts).
 */
export const RETURNED_RESPONSE_HEADERS = ['content-type', 'content-language', 'content-disposition', 'etag', 'last-modified', 'retry-after', 'x-request-id'] as const;

/**
 * Headers for the upstream request: the allowlisted caller headers, the request id, the bearer key,
 * and `accept-encoding: identity`, so the body comes back as bytes the secret guard can scan.
 * `authorization` is the whole header value (`Bearer <key>`, made once per relay).
 */
export function upstreamRequestHeaders(incoming: { header: HeaderGetter }, authorization: string, contentType: string | undefined, requestId: string): Record<string, string> {
  const connection = incoming.header('connection')?.toLowerCase();
  const hopByHop = connection?.split(',').map((t) => t.trim());
  const out: Record<string, string> = {};
  for (const name of COPIED_REQUEST_HEADERS) {
    const value = incoming.header(name);
    if (value !== null && !hopByHop?.includes(name)) out[name] = value;
  }
  // A tracestate only with a valid traceparent (W3C Trace Context), each within the spec's limits.
  const traceparent = incoming.header('traceparent');
  if (traceparent !== null && !hopByHop?.includes('traceparent') && isTraceparent(traceparent)) {
    out.traceparent = traceparent;
    const tracestate = incoming.header('tracestate');
    if (tracestate !== null && !hopByHop?.includes('tracestate') && isTracestate(tracestate)) out.tracestate = tracestate;
  }
  out['x-request-id'] = requestId;
  out['accept-encoding'] = 'identity';
  if (contentType) out['content-type'] = contentType;
  out.authorization = authorization;
  return out;
}

/** Headers for the caller's response: the allowlisted upstream headers, minus any value holding a secret (added to `out`). */
export function callerResponseHeaders(upstream: { get: HeaderGetter }, secrets: Secrets, out: Record<string, string> = {}): Record<string, string> {
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = upstream.get(name);
    if (value !== null && !containsSecret(value, secrets)) out[name] = value;
  }
  out['cache-control'] = 'no-store';
  return out;
}
