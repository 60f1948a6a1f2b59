import type { Stage } from '../compose.js';
import type { RelayContext } from '../context.js';
import { RelayError } from '../errors.js';
import type { Incoming } from '../message.js';
import { matchRoute } from '../router.js';

/** One request's span, as the tracer behind the stage made it. */
export interface RelaySpan {
  /** The `traceparent` the upstream request carries: this span's (undefined: pass the caller's on as it is). */
  readonly traceparent: string | undefined;
  /** The request is over: the status the caller got, and why it was refused or failed. */
  end(status: number, reason?: string): void;
}

/**
 * What makes the relay's spans: `kb-voice/otel`'s `relayTracing()` on OpenTelemetry, or any
 * other tracer. The relay itself depends on no tracing library.
 */
export interface RelayTracer {
  start(request: { method: string; endpoint: string | undefined; traceparent: string | null; requestId: string }): RelaySpan;
}

export interface TraceStageOptions {
  tracer: RelayTracer;
}

/**
 * The relay's server span per request (right after `log`, so it sees every reply): a child of the
 * caller's W3C `traceparent` (the browser's call), and the parent of the upstream's spans — the
 * request goes on carrying this span's `traceparent` (the header crosses the relay on its
 * allowlist; without this stage the caller's passes through unchanged).
 */
export function traceStage(options: TraceStageOptions): Stage {
  const { tracer } = options;
  return async (ctx, next) => {
    const { request } = ctx;
    const span = tracer.start({
      method: request.method,
      endpoint: matchRoute(request.method, ctx.rawPath, ctx.config.prefix, ctx.config.table)?.id,
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

/** The request as the later stages see it: its own in every way but the `traceparent` header. */
function withTraceparent(ctx: RelayContext, traceparent: string): void {
  const own = ctx.request;
  const traced: Incoming = Object.create(own, {
    header: { value: (name: string) => (name.toLowerCase() === 'traceparent' ? traceparent : own.header(name)) },
  });
  // `request` is read-only to stages that only read it; this stage is the one that replaces it.
  (ctx as { request: Incoming }).request = traced;
}
