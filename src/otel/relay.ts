import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { RelaySpan, RelayTracer } from '../relay/index.js';
import { ATTR, SPAN } from './names.js';
import { INSTRUMENTATION_SCOPE } from './telemetry.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

/**
 * The relay's spans on OpenTelemetry, for `createRelay({ tracing: relayTracing() })`: one SERVER
 * span per request (`kb_voice.relay <endpoint>`), child of the caller's `traceparent` (a traced
 * browser call) or a new trace, whose own `traceparent` the upstream request carries.
 */
export function relayTracing(options: { tracer?: Tracer } = {}): RelayTracer {
  const tracer = options.tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE);
  return {
    start(request): RelaySpan {
      const remote = parseTraceparent(request.traceparent);
      const parent = remote ? trace.setSpanContext(context.active(), { ...remote, isRemote: true }) : context.active();
      const span = tracer.startSpan(SPAN.relay(request.endpoint ?? 'unmatched'), {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR.httpMethod]: request.method,
          [ATTR.requestId]: request.requestId,
          ...(request.endpoint ? { [ATTR.relayEndpoint]: request.endpoint } : {}),
        },
      }, parent);
      return {
        traceparent: formatTraceparent(span.spanContext()),
        end(status, reason) {
          span.setAttribute(ATTR.httpStatus, status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, ...(reason ? { message: reason } : {}) });
          if (status >= 400) span.setAttribute(ATTR.errorType, String(status));
          span.end();
        },
      };
    },
  };
}
