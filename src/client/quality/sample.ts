import { estimateMos, measuredInput, qualityLevel, type QualityLevel } from './emodel.js';
import type { StatsReading } from './stats.js';

/** What `session.getSnapshot().quality` and the `quality` event carry (CONTRACT.md). */
export interface CallQuality {
  level: QualityLevel;
  /** MOS estimate, 1–4.5 (ITU-T G.107 E-model; docs/quality.md). */
  mos: number | null;
  rttMs: number | null;
  /** The worse direction's interarrival jitter (RFC 3550), ms. */
  jitterMs: number | null;
  /** The worse direction's packet loss, 0–100. */
  packetLossPct: number | null;
}

/** One measurement over the window: the contract's fields and the detail behind them. */
export interface QualitySample extends CallQuality {
  /** When it was taken (ms, the sampler's clock). */
  at: number;
  /** What the caller lost of the answer's audio (%). */
  inboundLossPct: number | null;
  /** What the service lost of the caller's audio (%), from its RTCP receiver reports. */
  outboundLossPct: number | null;
  /** Mean delay the caller's jitter buffer added (ms). */
  jitterBufferMs: number | null;
  /** Share of played samples that were concealed (lost or late), %. */
  concealmentPct: number | null;
  inboundKbps: number | null;
  outboundKbps: number | null;
  candidateType: string | null;
}

/** The quality before anything was measured. */
export const UNKNOWN_QUALITY: CallQuality = Object.freeze({ level: 'unknown', mos: null, rttMs: null, jitterMs: null, packetLossPct: null });

const pct = (part: number, whole: number) => (whole > 0 ? Math.min(100, Math.max(0, (100 * part) / whole)) : null);

/**
 * Fewest packets of a direction in a window for its loss to count (half a second of 20 ms
 * frames): between answers the service sends nothing, a silent caller almost nothing, and 1 lost
 * of 2 is no 50 % loss.
 */
export const MIN_PACKETS_FOR_LOSS = 25;
const worse = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/**
 * The sample between two readings of the same connection (`from` older): inbound loss and rates
 * from the counters' differences, outbound loss from the service's latest receiver report, RTT
 * and jitter as last reported.
 */
export function sampleBetween(from: StatsReading, to: StatsReading): QualitySample {
  const seconds = (to.at - from.at) / 1000;
  const i0 = from.inbound;
  const i1 = to.inbound;
  let inboundLossPct: number | null = null;
  let jitterBufferMs: number | null = null;
  let concealmentPct: number | null = null;
  let inboundKbps: number | null = null;
  if (i0 && i1) {
    const lost = i1.packetsLost - i0.packetsLost;
    const expected = lost + (i1.packetsReceived - i0.packetsReceived);
    const flowing = expected >= MIN_PACKETS_FOR_LOSS;
    if (flowing) inboundLossPct = pct(lost, expected);
    const emitted = (i1.jitterBufferEmittedCount ?? 0) - (i0.jitterBufferEmittedCount ?? 0);
    // only while audio flows: between answers the buffer's figures describe silence
    if (flowing && emitted > 0 && i1.jitterBufferDelay !== null && i0.jitterBufferDelay !== null) {
      jitterBufferMs = ((i1.jitterBufferDelay - i0.jitterBufferDelay) / emitted) * 1000;
    }
    if (i1.concealedSamples !== null && i0.concealedSamples !== null && i1.totalSamplesReceived !== null && i0.totalSamplesReceived !== null) {
      concealmentPct = pct(i1.concealedSamples - i0.concealedSamples, i1.totalSamplesReceived - i0.totalSamplesReceived);
    }
    if (seconds > 0) inboundKbps = ((i1.bytesReceived - i0.bytesReceived) * 8) / seconds / 1000;
  }
  let outboundKbps: number | null = null;
  const o0 = from.outbound;
  const o1 = to.outbound;
  if (o0 && o1 && seconds > 0) outboundKbps = ((o1.bytesSent - o0.bytesSent) * 8) / seconds / 1000;
  // The service's receiver report says what it lost since its previous report (RFC 3550 §6.4.1):
  // its cumulative count lags our send count by up to a report interval (about 5 s for audio),
  // so the two do not divide. It counts only while the caller sent audio: a silent microphone
  // (Opus DTX) sends a few packets a second, and one of them lost is no loss rate.
  const fraction = to.remoteInbound?.fractionLost ?? null;
  const sent = o0 && o1 ? o1.packetsSent - o0.packetsSent : 0;
  const outboundLossPct = fraction === null || sent < MIN_PACKETS_FOR_LOSS ? null : Math.min(100, Math.max(0, fraction * 100));
  const packetLossPct = worse(inboundLossPct, outboundLossPct);
  const rttMs = to.rttMs ?? to.remoteInbound?.rttMs ?? null;
  const jitterMs = worse(to.inbound?.jitterMs ?? null, to.remoteInbound?.jitterMs ?? null);
  const mos = rttMs !== null && packetLossPct !== null ? estimateMos(measuredInput({ rttMs, jitterMs, packetLossPct })) : null;
  return {
    at: to.at, level: qualityLevel(mos), mos, rttMs, jitterMs, packetLossPct,
    inboundLossPct, outboundLossPct, jitterBufferMs, concealmentPct, inboundKbps, outboundKbps, candidateType: to.candidateType,
  };
}

/** The contract's part of a sample. */
export function callQuality(s: QualitySample): CallQuality {
  return { level: s.level, mos: s.mos, rttMs: s.rttMs, jitterMs: s.jitterMs, packetLossPct: s.packetLossPct };
}
