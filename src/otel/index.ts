/**
 * `kb-voice/otel`: opt-in OpenTelemetry for kb-voice (docs/telemetry.md). Needs the optional peer
 * dependency `@opentelemetry/api`; the app registers its SDK and exporter. Spans and metrics follow
 * OpenTelemetry's GenAI conventions where they exist (`realtime_inference`, `invoke_agent`,
 * `gen_ai.agent.invocation.end_reason`) and use `kb_voice.*` where they do not.
 */
export { voiceTelemetry, INSTRUMENTATION_SCOPE, type VoiceTelemetry, type VoiceTelemetryOptions } from './telemetry.js';
export { relayTracing } from './relay.js';
export { formatTraceparent, parseTraceparent, type SpanContextLike } from './traceparent.js';
export { SPAN, ATTR, METRIC, PROVIDER } from './names.js';
