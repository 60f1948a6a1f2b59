/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as the relay passes it upstream: only a
 * valid `traceparent` goes on, and a `tracestate` only with the caller's valid `traceparent` (the
 * spec: a vendor that cannot parse `traceparent` must not use `tracestate`). Anything else is
 * dropped, never repaired, so a malformed, oversized or duplicated header reaches no upstream.
 */

/** Version 00, lower-case hex, as the spec writes it; a version this relay does not know is dropped too. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Most list members of a `tracestate` passed on (the spec's limit). */
export const MAX_TRACESTATE_MEMBERS = 32;
/** Most characters of a `tracestate` passed on (what the spec asks every vendor to propagate); a longer one is dropped whole. */
export const MAX_TRACESTATE_CHARS = 512;

/** One list member: `key=value`, the key simple or `tenant@system`, the value printable ASCII without `,` and `=`, not ending in a space. */
const MEMBER = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** Whether a `traceparent` is valid (one header: two joined with `, ` are not). */
export const isTraceparent = (value: string): boolean => value.length === 55 && TRACEPARENT.test(value);

/** Whether a `tracestate` (several headers joined with `, ` form one list) is valid and within the limits. */
export function isTracestate(value: string): boolean {
  if (value.length > MAX_TRACESTATE_CHARS) return false;
  const keys = new Set<string>();
  for (const part of value.split(',')) {
    const member = part.trim();
    if (member === '') continue; // empty list members are allowed and ignored
    if (!MEMBER.test(member)) return false;
    const key = member.slice(0, member.indexOf('='));
    if (keys.has(key)) return false;
    keys.add(key);
    if (keys.size > MAX_TRACESTATE_MEMBERS) return false;
  }
  return true;
}
