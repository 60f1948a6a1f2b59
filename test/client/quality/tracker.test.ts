import { describe, expect, it } from 'vitest';
import { QualityTracker, type CallQuality } from '../../../src/client/quality/index.js';
import { readStats, sampleBetween } from '../../../src/client/quality/index.js';
import { rToMos } from '../../../src/client/quality/emodel.js';
import { FakeClock } from '../../../src/testing/fake-clock.js';

/** A transport whose getStats() reports `packets` received (and `lost`) so far at a 40 ms RTT. */
function transport(counters: { received: number; lost: number }) {
  return {
    transport: {
      getStats: async () => new Map<string, Record<string, unknown>>([
        ['CP', { id: 'CP', type: 'candidate-pair', selected: true, currentRoundTripTime: 0.04, localCandidateId: 'L' }],
        ['L', { id: 'L', type: 'local-candidate', candidateType: 'host' }],
        ['IA', { id: 'IA', type: 'inbound-rtp', kind: 'audio', packetsReceived: counters.received, packetsLost: counters.lost, jitter: 0.005, bytesReceived: 0 }],
      ]) as unknown as RTCStatsReport,
    } as never,
  };
}

describe('QualityTracker (a session effect)', () => {
  it('samples the connected attempt, reports changes, counts recoveries and sums up the call', async () => {
    const clock = new FakeClock(0);
    const seen: CallQuality[] = [];
    const tracker = new QualityTracker({ changed: (q) => seen.push(q), clock }, { intervalMs: 1000, windowMs: 2000 });
    expect(tracker.quality).toEqual({ level: 'unknown', mos: null, rttMs: null, jitterMs: null, packetLossPct: null });
    const c = { received: 0, lost: 0 };
    tracker.connected(transport(c));
    for (let i = 0; i < 3; i++) {
      c.received += 50;
      await clock.advance(1000);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(tracker.quality).toMatchObject({ level: 'excellent', rttMs: 40, jitterMs: 5, packetLossPct: 0 });
    // unchanged values are not reported again
    const before = seen.length;
    c.received += 50;
    await clock.advance(1000);
    expect(seen.length).toBe(before);

    tracker.lost();
    await clock.advance(3000);
    const c2 = { received: 0, lost: 0 };
    tracker.connected(transport(c2));
    for (let i = 0; i < 3; i++) {
      c2.received += 40;
      c2.lost += 10;
      await clock.advance(1000);
    }
    expect(tracker.quality.packetLossPct).toBe(20);
    expect(tracker.quality.level).toBe('poor');
    tracker.close();
    const report = tracker.report();
    expect(report.reconnects).toBe(1);
    expect(report.packetLossPct.max).toBe(20);
    expect(report.rttMs).toEqual({ p50: 40, p95: 40 });
    expect(report.samples).toBeGreaterThanOrEqual(5);
  });

  it('gives typed turns no perceived latency, and sampling can be turned off', async () => {
    const clock = new FakeClock(0);
    const tracker = new QualityTracker({ changed: () => {}, clock }, { intervalMs: 0 });
    tracker.level(0.9, 0);
    await clock.advance(100);
    tracker.level(0, 0);
    await clock.advance(500);
    tracker.level(0, 0);
    await clock.advance(200);
    tracker.level(0, 0.9);
    expect(tracker.turnFinished('text')).toBeNull();
    tracker.connected(transport({ received: 100, lost: 0 }));
    await clock.advance(5000);
    expect(tracker.quality.level).toBe('unknown');
    expect(() => new QualityTracker({ changed: () => {} }, { intervalMs: -1 })).toThrow(/intervalMs/);
  });
});

describe('sample rules', () => {
  it('counts a direction only with enough packets (a silent caller, no answer playing)', () => {
    const stats = (received: number, lost: number, sent: number, fraction: number) =>
      new Map<string, Record<string, unknown>>([
        ['IA', { id: 'IA', type: 'inbound-rtp', kind: 'audio', packetsReceived: received, packetsLost: lost, bytesReceived: 0 }],
        ['OA', { id: 'OA', type: 'outbound-rtp', kind: 'audio', packetsSent: sent, bytesSent: 0 }],
        ['RIA', { id: 'RIA', type: 'remote-inbound-rtp', kind: 'audio', fractionLost: fraction, roundTripTime: 0.05 }],
      ]);
    // 5 comfort-noise packets, one lost, and 2 answer packets: neither is a loss rate
    const quiet = sampleBetween(readStats(stats(0, 0, 0, 0), 0), readStats(stats(2, 0, 5, 0.2), 2000));
    expect(quiet.outboundLossPct).toBeNull();
    expect(quiet.inboundLossPct).toBeNull();
    expect(quiet.mos).toBeNull();
    const speaking = sampleBetween(readStats(stats(0, 0, 0, 0), 0), readStats(stats(100, 0, 100, 0.05), 2000));
    expect(speaking.outboundLossPct).toBeCloseTo(5, 6);
    expect(speaking.packetLossPct).toBeCloseTo(5, 6);
  });

  it('keeps MOS on its 1–4.5 scale where the cubic dips below 1', () => {
    expect(rToMos(3)).toBe(1);
    expect(rToMos(6)).toBeGreaterThanOrEqual(1);
  });
});
