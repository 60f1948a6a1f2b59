import { EventEmitter } from 'eventemitter3';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionState, VoiceSession } from '../../src/client/index.js';
import { voiceTelemetry } from '../../src/otel/index.js';
import { formatTraceparent, parseTraceparent } from '../../src/otel/traceparent.js';

/** The little of a VoiceSession the instrumentation listens to: its events and state. */
class FakeSession extends EventEmitter {
  state: SessionState = { status: 'idle' };
  sessionId: string | undefined;
  go(next: SessionState): void {
    const previous = this.state;
    this.state = next;
    if ('sessionId' in next) this.sessionId = next.sessionId;
    this.emit('state', next, previous);
  }
}

const providers: Array<{ shutdown(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.shutdown()));
});

function setup() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  providers.push(tracerProvider, meterProvider);
  const telemetry = voiceTelemetry({ tracer: tracerProvider.getTracer('kb-voice'), meter: meterProvider.getMeter('kb-voice') });
  const metric = async (name: string) => {
    await reader.forceFlush();
    return metrics.getMetrics().flatMap((r) => r.scopeMetrics).flatMap((s) => s.metrics).filter((m) => m.descriptor.name === name).at(-1);
  };
  return { telemetry, spans, metric };
}

describe('kb-voice/otel on a call\'s events', () => {
  it('records reconnects (span with its cause, counter), a failed call as an error, and turns left open as session_closed', async () => {
    const { telemetry, spans, metric } = setup();
    const session = new FakeSession();
    telemetry.instrument(session as unknown as VoiceSession, { aiId: 'robot-1' });
    session.go({ status: 'connecting', attempt: 1 });
    session.go({ status: 'connected', sessionId: 's-1' });
    session.go({ status: 'reconnecting', sessionId: 's-1', how: 'new-offer', attempt: 1, cause: 'network_change' });
    session.go({ status: 'reconnecting', sessionId: 's-1', how: 'new-offer', attempt: 2, cause: 'network_change' });
    session.go({ status: 'connected', sessionId: 's-1' });
    session.emit('userSpeaking', true);
    session.emit('transcript', { turnId: 4, role: 'user', text: 'hello', final: false });
    session.go({ status: 'ended', sessionId: 's-1', reason: 'connection_lost' });
    const finished = spans.getFinishedSpans();
    const reconnect = finished.filter((s) => s.name === 'kb_voice.reconnect');
    expect(reconnect).toHaveLength(1); // one recovery, however many tries
    expect(reconnect[0]!.attributes['kb_voice.reconnect.cause']).toBe('network_change');
    const call = finished.find((s) => s.name === 'realtime_inference')!;
    expect(call.attributes).toMatchObject({ 'kb_voice.call.reconnects': 1, 'kb_voice.call.end_reason': 'connection_lost', 'gen_ai.realtime_session.id': 's-1' });
    const open = finished.find((s) => s.name === 'invoke_agent')!;
    expect(open.attributes).toMatchObject({ 'gen_ai.agent.invocation.end_reason': 'session_closed', 'kb_voice.turn.id': 4 });
    expect((await metric('kb_voice.call.reconnects'))!.dataPoints[0]!.value).toBe(1);

    const failing = new FakeSession();
    telemetry.instrument(failing as unknown as VoiceSession);
    failing.go({ status: 'connecting', attempt: 1 });
    failing.go({ status: 'failed', error: Object.assign(new Error('denied'), { code: 'microphone_denied' }) as never });
    const failed = spans.getFinishedSpans().filter((s) => s.name === 'realtime_inference').at(-1)!;
    expect(failed.attributes['error.type']).toBe('microphone_denied');
    expect(failed.status.code).toBe(2); // ERROR
    expect(spans.getFinishedSpans().filter((s) => s.name === 'kb_voice.connect')).toHaveLength(2);
  });

  it('sends the open span as traceparent on API calls (the connect span while connecting, the call\'s after its end: its reports), and none before a call', async () => {
    const spans = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
    providers.push(provider);
    const seen: Array<string | null> = [];
    const telemetry = voiceTelemetry({
      tracer: provider.getTracer('kb-voice'),
      fetch: async (input, init) => (seen.push(new Request(input, init).headers.get('traceparent')), new Response('{}')),
    });
    await telemetry.fetch('http://app.test/before');
    const session = new FakeSession();
    telemetry.instrument(session as unknown as VoiceSession);
    session.go({ status: 'connecting', attempt: 1 });
    await telemetry.fetch('http://app.test/signaling', { method: 'POST', body: '{}' });
    session.go({ status: 'connected', sessionId: 's-1' });
    await telemetry.fetch('http://app.test/warmup');
    session.go({ status: 'ended', sessionId: 's-1', reason: 'local' });
    // report() after end() (#46): E11–E14 are the call's, not new root traces at the relay.
    await telemetry.fetch('http://app.test/report');
    const byName = (name: string) => spans.getFinishedSpans().find((s) => s.name === name)!.spanContext().spanId;
    expect(seen.map((h) => (h ? parseTraceparent(h)!.spanId : null))).toEqual([null, byName('kb_voice.connect'), byName('realtime_inference'), byName('realtime_inference')]);
    // The next traced call takes over.
    const next = new FakeSession();
    telemetry.instrument(next as unknown as VoiceSession);
    next.go({ status: 'connecting', attempt: 1 });
    await telemetry.fetch('http://app.test/signaling');
    expect(parseTraceparent(seen.at(-1)!)!.traceId).not.toBe(parseTraceparent(seen[1]!)!.traceId);
  });

  it('reads and writes W3C traceparent, refusing invalid ones', () => {
    const ctx = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
    expect(formatTraceparent(ctx)).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual(ctx);
    expect(parseTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent('garbage')).toBeNull();
    expect(formatTraceparent({ ...ctx, spanId: '0000000000000000' })).toBeUndefined();
  });
});
