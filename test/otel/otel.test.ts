import { readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from 'kb-voice-emulator';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession } from '../../src/client/index.js';
import { parseTraceparent, relayTracing, voiceTelemetry } from '../../src/otel/index.js';
import { createRelay } from '../../src/relay/index.js';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';
import { askAndInterrupt, nextTurn } from '../client/helpers/turns.js';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

// kb-voice/otel end to end: a call (the client in Node, as a browser would run it) through the
// relay to the emulator, traced and measured with the OpenTelemetry SDK exporting OTLP/HTTP JSON
// to a receiver in this process. The "upstream" span stands for an instrumented service: the
// relay's upstream fetch opens it from the traceparent the relay sent.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('kb-voice/otel', () => {
  it('traces a call browser -> relay -> upstream with parent links, turns, phases, and exports the metrics', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }) })] });
    const reader = new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${receiver.url}/v1/metrics` }), exportIntervalMillis: 3_600_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });
    cleanups.push(() => Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]));
    const tracer = tracerProvider.getTracer('test');

    const emu = await startEmulator({ port: 0, agentBuildMs: 0 });
    cleanups.push(() => emu.close());
    const upstreamParents: string[] = [];
    const relay = createRelay({
      upstream: emu.url, apiKey: emu.apiKey,
      tracing: relayTracing({ tracer: tracerProvider.getTracer('kb-voice') }),
      // the instrumented service: a server span per request, child of the traceparent it received
      fetch: async (url, init) => {
        const header = new Headers(init?.headers).get('traceparent');
        const remote = parseTraceparent(header);
        if (remote) upstreamParents.push(remote.spanId);
        const parent = remote ? trace.setSpanContext(context.active(), { ...remote, isRemote: true }) : context.active();
        const span = tracer.startSpan('upstream', { kind: SpanKind.SERVER }, parent);
        try {
          return await fetch(url, init);
        } finally {
          span.end();
        }
      },
    });
    const telemetry = voiceTelemetry({
      tracer: tracerProvider.getTracer('kb-voice'), meter: meterProvider.getMeter('kb-voice'),
      fetch: (input, init) => relay.fetch(new Request(input, init)),
    });
    const mic = new FakeMicrophone();
    const session = new VoiceSession({
      aiId: emu.fixtures.robotId, api: createApiClient({ baseUrl: 'http://app.test/api/voice', fetch: telemetry.fetch }),
      wrtc: wrtc as never, microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter, heartbeatIntervalMs: 250,
    });
    cleanups.push(() => mic.close());
    telemetry.instrument(session, { aiId: emu.fixtures.robotId });
    await session.start();
    await new Promise<void>((resolve) => session.once('quality', () => resolve()));
    const voice = nextTurn(session);
    await mic.playWav(readFileSync(new URL('../fixtures/audio/boil-time.wav', import.meta.url)));
    const spoken = await voice;
    expect(spoken.perceivedLatencyMs).not.toBeNull();
    const typed = await askAndInterrupt(session, 'How long is the warranty?');
    expect(typed.interrupted).toBe(true);
    await session.end();
    await reader.forceFlush();
    await tracerProvider.forceFlush();

    const spans = receiver.spans;
    const named = (name: string) => spans.filter((s) => s.name === name);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);

    const [call] = named('realtime_inference');
    expect(call).toBeDefined();
    expect(call!.parentSpanId).toBe('');
    expect(call!.attributes).toMatchObject({
      'gen_ai.operation.name': 'realtime_inference', 'gen_ai.provider.name': 'kb_voice', 'gen_ai.agent.id': emu.fixtures.robotId,
      'gen_ai.realtime_session.id': session.sessionId, 'gen_ai.conversation.id': session.sessionId, 'kb_voice.call.end_reason': 'local',
    });
    const [connect] = named('kb_voice.connect');
    expect(parentOf(connect!)).toBe(call);
    // every relay span hangs under the browser's call (signaling under its connect span), every upstream span under a relay span
    const relaySpans = spans.filter((s) => s.name.startsWith('kb_voice.relay '));
    expect(relaySpans.map((s) => s.name)).toContain('kb_voice.relay RS');
    for (const r of relaySpans) {
      expect(r.traceId).toBe(call!.traceId);
      expect([call!.spanId, connect!.spanId]).toContain(r.parentSpanId);
      expect(r.kind).toBe(2); // SERVER
    }
    expect(parentOf(relaySpans.find((s) => s.name === 'kb_voice.relay RS')!)).toBe(connect);
    const upstream = named('upstream');
    expect(upstream.length).toBe(relaySpans.length);
    for (const u of upstream) expect(parentOf(u)?.name).toMatch(/^kb_voice\.relay /);
    expect(upstreamParents.every((id) => relaySpans.some((r) => r.spanId === id))).toBe(true);

    const turns = named('invoke_agent');
    expect(turns.map((t) => t.attributes['gen_ai.agent.invocation.end_reason']).sort()).toEqual(['completed', 'interrupted']);
    for (const t of turns) expect(parentOf(t)).toBe(call);
    const voiceTurn = turns.find((t) => t.attributes['kb_voice.turn.input'] === 'voice')!;
    expect(voiceTurn.attributes['kb_voice.turn.perceived_latency_ms']).toBe(spoken.perceivedLatencyMs);
    const phases = spans.filter((s) => s.name.startsWith('kb_voice.phase.'));
    expect(phases.map((p) => p.attributes['kb_voice.phase']).sort()).toEqual(['buffering', 'endpointing', 'network', 'service']);
    for (const p of phases) expect(parentOf(p)).toBe(voiceTurn);

    const metric = (name: string) => receiver.metrics.filter((m) => m.name === name).flatMap((m) => m.points);
    expect(metric('kb_voice.call.time_to_connected')[0]).toMatchObject({ count: 1 });
    expect(metric('kb_voice.turn.perceived_latency')[0]!.sum).toBeCloseTo(spoken.perceivedLatencyMs! / 1000, 3);
    expect(metric('kb_voice.turn.first_response').reduce((n, p) => n + p.count!, 0)).toBe(2);
    const voicePhases = metric('kb_voice.turn.phase.duration').filter((p) => p.attributes['kb_voice.turn.input'] === 'voice');
    expect(voicePhases.map((p) => p.attributes['kb_voice.phase']).sort()).toEqual(['buffering', 'endpointing', 'network', 'service']);
    expect(metric('kb_voice.call.mos')[0]!.count).toBeGreaterThanOrEqual(1);
    expect(metric('kb_voice.turn.interruptions')[0]).toMatchObject({ value: 1 });
  }, 60_000);
});
