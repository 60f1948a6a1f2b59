import { metrics, trace, type Meter, type Span, type Tracer } from '@opentelemetry/api';
import type { VoiceSession } from '../client/index.js';
import { VoiceMetrics } from './metrics.js';
import { traceSession, type TracedCall } from './session.js';
import { formatTraceparent } from './traceparent.js';

/** The instrumentation scope kb-voice's spans and metrics are reported under. */
export const INSTRUMENTATION_SCOPE = 'kb-voice';

export interface VoiceTelemetryOptions {
  /** Default: `trace.getTracer('kb-voice')` of the globally registered provider (none registered: no-op). */
  tracer?: Tracer;
  /** Default: `metrics.getMeter('kb-voice')` of the globally registered provider. */
  meter?: Meter;
  /** The fetch the API calls go through; default `globalThis.fetch` (looked up at call time). */
  fetch?: typeof globalThis.fetch;
}

export interface VoiceTelemetry {
  /**
   * A fetch for `createApiClient({ fetch })`: every API call (signaling, trickle, warmup, reports)
   * carries the W3C `traceparent` of the call in progress (its connect span while connecting), so
   * the relay's and the service's spans join the browser's trace.
   */
  readonly fetch: typeof globalThis.fetch;
  /**
   * Traces a call (call it before `start()`): spans, metrics, and the `traceparent` of its API
   * calls. Returns the function that stops it (the call's end does that by itself).
   */
  instrument(session: VoiceSession, options?: { aiId?: string }): () => void;
}

/**
 * Opt-in OpenTelemetry for kb-voice calls, on `@opentelemetry/api` only: the app registers its
 * own SDK and exporter (for example OTLP/HTTP to its collector) and kb-voice reports through it.
 * Nothing of this is in the `kb-voice` entry.
 *
 * @example
 * import { voiceTelemetry } from 'kb-voice/otel';
 * const telemetry = voiceTelemetry();
 * const api = createApiClient({ baseUrl: '/api/voice', fetch: telemetry.fetch });
 * const session = new VoiceSession({ aiId, api });
 * telemetry.instrument(session, { aiId });
 * await session.start();
 */
export function voiceTelemetry(options: VoiceTelemetryOptions = {}): VoiceTelemetry {
  const tracer = options.tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE);
  const voiceMetrics = new VoiceMetrics(options.meter ?? metrics.getMeter(INSTRUMENTATION_SCOPE));
  /** The calls being traced, newest last: an API call names the newest one's open span. */
  const calls: TracedCall[] = [];
  /**
   * The span of the call that ended last: its `report()` (E11–E14, after `end()`) still belongs to
   * it, so those requests carry its `traceparent` (until another call is traced) rather than start
   * new root traces at the relay.
   */
  let ended: Span | undefined;
  const baseFetch = (input: RequestInfo | URL, init?: RequestInit) => (options.fetch ?? globalThis.fetch)(input, init);

  const tracedFetch: typeof globalThis.fetch = (input, init) => {
    const span = trace.getActiveSpan() ?? calls.at(-1)?.current() ?? ended;
    const header = span && formatTraceparent(span.spanContext());
    if (!header) return baseFetch(input, init);
    const request = new Request(input, init);
    request.headers.set('traceparent', header);
    return baseFetch(request);
  };

  return {
    fetch: tracedFetch,
    instrument(session, opts = {}) {
      const traced = traceSession(session, { tracer, metrics: voiceMetrics, ...(opts.aiId ? { aiId: opts.aiId } : {}) });
      calls.push(traced);
      ended = undefined;
      const stop = () => {
        const i = calls.indexOf(traced);
        if (i >= 0) calls.splice(i, 1);
        traced.dispose();
      };
      const onState = (state: { status: string }) => {
        if (state.status !== 'ended' && state.status !== 'failed') return;
        session.off('state', onState);
        stop();
        if (calls.length === 0) ended = traced.last;
      };
      session.on('state', onState);
      return () => {
        session.off('state', onState);
        stop();
      };
    },
  };
}
