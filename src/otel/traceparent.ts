/**
 * W3C Trace Context's `traceparent` header (https://www.w3.org/TR/trace-context/), version 00:
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`. Written and read here so a call is
 * traced across browser → relay → service whatever propagator the app registered (or none).
 */
export interface SpanContextLike {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

const HEADER = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** The header for a span context; undefined for an invalid one (all-zero ids: a non-recording no-op span). */
export function formatTraceparent(c: SpanContextLike): string | undefined {
  if (!/^[0-9a-f]{32}$/.test(c.traceId) || !/^[0-9a-f]{16}$/.test(c.spanId) || ZEROS.test(c.traceId) || ZEROS.test(c.spanId)) return undefined;
  return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The span context a header names; null when absent or malformed (then a new trace starts). */
export function parseTraceparent(header: string | null | undefined): SpanContextLike | null {
  const m = header ? HEADER.exec(header.trim().toLowerCase()) : null;
  if (!m || ZEROS.test(m[1]!) || ZEROS.test(m[2]!)) return null;
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) };
}
