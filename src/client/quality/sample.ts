import { estimateMos, qualityLevel, type QualityLevel } from './emodel.js';
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
const worse = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/**
 * The sample between two readings of the same connection (`from` older): loss and rates from the
 * counters' differences, RTT and jitter as last reported. When the jitter buffer's delay is not
 * reported, twice the jitter stands for it (a common jitter-buffer target).
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
    inboundLossPct = pct(lost, lost + (i1.packetsReceived - i0.packetsReceived));
    const emitted = (i1.jitterBufferEmittedCount ?? 0) - (i0.jitterBufferEmittedCount ?? 0);
    if (emitted > 0 && i1.jitterBufferDelay !== null && i0.jitterBufferDelay !== null) {
      jitterBufferMs = ((i1.jitterBufferDelay - i0.jitterBufferDelay) / emitted) * 1000;
    }
    if (i1.concealedSamples !== null && i0.concealedSamples !== null && i1.totalSamplesReceived !== null && i0.totalSamplesReceived !== null) {
      concealmentPct = pct(i1.concealedSamples - i0.concealedSamples, i1.totalSamplesReceived - i0.totalSamplesReceived);
    }
    if (seconds > 0) inboundKbps = ((i1.bytesReceived - i0.bytesReceived) * 8) / seconds / 1000;
  }
  let outboundLossPct: number | null = null;
  let outboundKbps: number | null = null;
  const o0 = from.outbound;
  const o1 = to.outbound;
  if (o0 && o1) {
    if (seconds > 0) outboundKbps = ((o1.bytesSent - o0.bytesSent) * 8) / seconds / 1000;
    const r0 = from.remoteInbound?.packetsLost ?? null;
    const r1 = to.remoteInbound?.packetsLost ?? null;
    if (r0 !== null && r1 !== null) outboundLossPct = pct(r1 - r0, o1.packetsSent - o0.packetsSent);
  }
  if (outboundLossPct === null && to.remoteInbound?.fractionLost != null) outboundLossPct = to.remoteInbound.fractionLost * 100;
  const packetLossPct = worse(inboundLossPct, outboundLossPct);
  const rttMs = to.rttMs ?? to.remoteInbound?.rttMs ?? null;
  const jitterMs = worse(to.inbound?.jitterMs ?? null, to.remoteInbound?.jitterMs ?? null);
  const mos =
    rttMs !== null && packetLossPct !== null
      ? estimateMos({ rttMs, packetLossPct, jitterBufferMs: jitterBufferMs ?? 2 * (jitterMs ?? 0) })
      : null;
  return {
    at: to.at, level: qualityLevel(mos), mos, rttMs, jitterMs, packetLossPct,
    inboundLossPct, outboundLossPct, jitterBufferMs, concealmentPct, inboundKbps, outboundKbps, candidateType: to.candidateType,
  };
}

/** The contract's part of a sample. */
export function callQuality(s: QualitySample): CallQuality {
  return { level: s.level, mos: s.mos, rttMs: s.rttMs, jitterMs: s.jitterMs, packetLossPct: s.packetLossPct };
}
