import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import type { Turn } from '../client/index.js';
import { TIMING_PHASES } from '../client/index.js';
import { ATTR, METRIC } from './names.js';

/** Seconds from ms (OpenTelemetry's unit for durations). */
const s = (ms: number) => ms / 1000;
/** Bucket bounds (s) for voice latencies: 50 ms to 10 s. */
const LATENCY_BOUNDS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];

/** The instruments of one meter, made once and shared by every instrumented call. */
export class VoiceMetrics {
  private readonly connected: Histogram;
  private readonly perceived: Histogram;
  private readonly firstResponse: Histogram;
  private readonly phase: Histogram;
  private readonly mos: Histogram;
  private readonly reconnectCount: Counter;
  private readonly interruptionCount: Counter;

  constructor(meter: Meter) {
    const latency = (name: string, description: string) =>
      meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: LATENCY_BOUNDS } });
    this.connected = latency(METRIC.timeToConnected, 'From start() to connected (microphone, signaling, ICE, session.ready)');
    this.perceived = latency(METRIC.perceivedLatency, "From the caller's speech end to the first answer sound at the ear (Turn.perceivedLatencyMs)");
    this.firstResponse = latency(METRIC.firstResponse, "The service's own first response: its end-of-input detection to its first answer audio");
    this.phase = latency(METRIC.phase, 'One phase of a turn (kb_voice.phase: endpointing, service, network, buffering, playback)');
    this.mos = meter.createHistogram(METRIC.mos, { unit: '1', description: 'Call-quality estimate (E-model MOS, 1-4.5), one value per change', advice: { explicitBucketBoundaries: [1, 2, 2.5, 3, 3.5, 4, 4.3, 4.5] } });
    this.reconnectCount = meter.createCounter(METRIC.reconnects, { unit: '{reconnect}', description: 'Times a call went through reconnecting' });
    this.interruptionCount = meter.createCounter(METRIC.interruptions, { unit: '{turn}', description: 'Answers cut before their end' });
  }

  timeToConnected(ms: number, attrs: Attributes): void {
    this.connected.record(s(ms), attrs);
  }

  turn(turn: Turn, attrs: Attributes): void {
    if (turn.perceivedLatencyMs !== null) this.perceived.record(s(turn.perceivedLatencyMs), attrs);
    if (turn.firstResponseMs !== null) this.firstResponse.record(s(turn.firstResponseMs), attrs);
    for (const phase of TIMING_PHASES) {
      const ms = turn.timing[`${phase}Ms`];
      if (ms !== null) this.phase.record(s(ms), { ...attrs, [ATTR.phase]: phase });
    }
    if (turn.interrupted) this.interruptionCount.add(1, attrs);
  }

  quality(mos: number | null, attrs: Attributes): void {
    if (mos !== null) this.mos.record(mos, attrs);
  }

  reconnect(attrs: Attributes): void {
    this.reconnectCount.add(1, attrs);
  }
}
