/**
 * Reads what the quality model needs from one `RTCPeerConnection.getStats()` report (W3C
 * webrtc-stats): the selected candidate pair, the audio `inbound-rtp` (what the caller receives),
 * `outbound-rtp` and `remote-inbound-rtp` (what the service says it received of the caller's audio).
 */

/** Cumulative counters and instant values at one moment. Times in ms, counters as reported. */
export interface StatsReading {
  at: number;
  /** Round-trip time of the selected candidate pair (or RTCP's), ms. */
  rttMs: number | null;
  /** Local candidate type of the selected pair: `host`, `srflx`, `prflx` or `relay`. */
  candidateType: string | null;
  /** Bytes received on the selected pair so far (media, RTCP, data channel; not ICE checks). */
  pathBytesReceived: number | null;
  inbound: {
    packetsReceived: number;
    packetsLost: number;
    jitterMs: number | null;
    /** Seconds, summed over emitted samples (divide by the count). */
    jitterBufferDelay: number | null;
    jitterBufferEmittedCount: number | null;
    concealedSamples: number | null;
    totalSamplesReceived: number | null;
    bytesReceived: number;
  } | null;
  outbound: { packetsSent: number; bytesSent: number } | null;
  remoteInbound: { packetsLost: number | null; fractionLost: number | null; jitterMs: number | null; rttMs: number | null } | null;
}

type Stat = Record<string, unknown> & { type: string; id: string };

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isAudio = (s: Stat) => (s.kind ?? s.mediaType) === 'audio';

/** Reads a report (anything with `forEach` over stats objects, as RTCStatsReport and Map are). */
export function readStats(report: { forEach(cb: (value: unknown) => void): void }, at: number): StatsReading {
  const stats = new Map<string, Stat>();
  report.forEach((value) => {
    const s = value as Stat;
    if (s && typeof s.id === 'string') stats.set(s.id, s);
  });
  let pair: Stat | undefined;
  let inbound: Stat | undefined;
  let outbound: Stat | undefined;
  let remoteInbound: Stat | undefined;
  for (const s of stats.values()) {
    if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') pair = stats.get(s.selectedCandidatePairId) ?? pair;
    else if (s.type === 'candidate-pair' && !pair && (s.selected === true || (s.nominated === true && s.state === 'succeeded'))) pair = s;
    else if (s.type === 'inbound-rtp' && isAudio(s)) inbound ??= s;
    else if (s.type === 'outbound-rtp' && isAudio(s)) outbound ??= s;
    else if (s.type === 'remote-inbound-rtp' && isAudio(s)) remoteInbound ??= s;
  }
  const local = pair && typeof pair.localCandidateId === 'string' ? stats.get(pair.localCandidateId) : undefined;
  const pairRtt = num(pair?.currentRoundTripTime);
  const rtcpRtt = num(remoteInbound?.roundTripTime);
  const ms = (s: number | null) => (s === null ? null : s * 1000);
  return {
    at,
    rttMs: ms(pairRtt ?? rtcpRtt),
    candidateType: typeof local?.candidateType === 'string' ? local.candidateType : null,
    pathBytesReceived: num(pair?.bytesReceived),
    inbound: inbound
      ? {
          packetsReceived: num(inbound.packetsReceived) ?? 0,
          packetsLost: num(inbound.packetsLost) ?? 0,
          jitterMs: ms(num(inbound.jitter)),
          jitterBufferDelay: num(inbound.jitterBufferDelay),
          jitterBufferEmittedCount: num(inbound.jitterBufferEmittedCount),
          concealedSamples: num(inbound.concealedSamples),
          totalSamplesReceived: num(inbound.totalSamplesReceived),
          bytesReceived: num(inbound.bytesReceived) ?? 0,
        }
      : null,
    outbound: outbound ? { packetsSent: num(outbound.packetsSent) ?? 0, bytesSent: num(outbound.bytesSent) ?? 0 } : null,
    remoteInbound: remoteInbound
      ? {
          packetsLost: num(remoteInbound.packetsLost),
          fractionLost: num(remoteInbound.fractionLost),
          jitterMs: ms(num(remoteInbound.jitter)),
          rttMs: ms(rtcpRtt),
        }
      : null,
  };
}
