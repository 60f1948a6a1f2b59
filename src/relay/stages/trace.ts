import type { Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { RelayError } from '../errors.js';
import type { Incoming } from '../message.js';
import type { RouteTable } from '../route-types.js';
import { matchRoute } from '../router.js';
import { isTraceparent } from '../trace-context.js';
import type { RelaySpan, RelayTracer } from '../types.js';

export type { RelaySpan, RelayTracer };

export interface TraceStageOptions {
  tracer: RelayTracer;
  /** The relay's prefix and route table, to name the endpoint on the span. */
  prefix: string;
  table: RouteTable;
}

/**
 * The relay's server span per request (right after `log`, so it sees every reply): a child of the
 * caller's W3C `traceparent` (the browser's call), and the parent of the upstream's spans — the
 * request goes on carrying this span's `traceparent` (the header crosses the relay on its
 * allowlist; without this stage the caller's passes through unchanged).
 */
export function traceStage(options: TraceStageOptions): Stage {
  const { tracer, prefix, table } = options;
  return async (ctx, next) => {
    const { request } = ctx;
    const span = tracer.start({
      method: request.method,
      endpoint: matchRoute(request.method, ctx.rawPath, prefix, table)?.id,
      traceparent: request.header('traceparent'),
      requestId: ctx.requestId,
    });
    if (span.traceparent) withTraceparent(ctx, span.traceparent);
    try {
      const out = await next(); // a reply or an upstream answer: both carry the status
      span.end(out.status);
      return out;
    } catch (error) {
      span.end(error instanceof RelayError ? error.status : 500, error instanceof RelayError ? error.reason : 'internal error');
      throw error;
    }
  };
}

/**
 * The request as the later stages see it: its own in every way but the trace headers. The caller's
 * `tracestate` goes on only when its own `traceparent` was valid: the state of a trace the span did
 * not continue belongs to no one.
 */
function withTraceparent(ctx: RelayContext, traceparent: string): void {
  const own = ctx.request;
  const callers = own.header('traceparent');
  const tracestate = callers !== null && isTraceparent(callers) ? own.header('tracestate') : null;
  const traced: Incoming = Object.create(own, {
    header: {
      value: (name: string) => {
        const lower = name.toLowerCase();
        return lower === 'traceparent' ? traceparent : lower === 'tracestate' ? tracestate : own.header(name);
      },
    },
  });
  // `request` is read-only to stages that only read it; this stage is the one that replaces it.
  (ctx as { request: Incoming }).request = traced;
}
