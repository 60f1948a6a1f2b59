// webpack 5, with kb-voice/otel: spans of the call go to an in-memory exporter the test reads
// (an app would export them over OTLP/HTTP to its collector).
import { createApiClient } from 'kb-voice';
import { voiceTelemetry } from 'kb-voice/otel';
import { WebTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-web';
import { mountWidget } from '../shared/widget-app.js';

const exporter = new InMemorySpanExporter();
new WebTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
window.finishedSpans = () => exporter.getFinishedSpans().map((span) => span.name);

const telemetry = voiceTelemetry();
const relay = new URLSearchParams(location.search).get('relay') ?? '';
const widget = mountWidget({ api: createApiClient({ baseUrl: relay, fetch: telemetry.fetch }) });
// Each call's session, traced before it starts (the widget tells of it with a `session` event).
widget.addEventListener('session', (event) => telemetry.instrument(event.detail));
