import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/testing/fake-clock.js';
import { QualitySampler, readStats, sampleBetween, summarizeQuality, percentile, type QualitySample } from '../../../src/client/quality/index.js';

/** A Chrome-like stats report at one moment. */
function report(o: { received: number; lost: number; sent: number; remoteLost: number; fraction?: number; rtt?: number; jitter?: number; bytesIn?: number; bytesOut?: number; jbDelay?: number; emitted?: number; concealed?: number; samples?: number }) {
  return new Map<string, Record<string, unknown>>([
    ['T1', { id: 'T1', type: 'transport', selectedCandidatePairId: 'CP1' }],
    ['CP1', { id: 'CP1', type: 'candidate-pair', localCandidateId: 'L1', currentRoundTripTime: o.rtt ?? 0.05, state: 'succeeded', nominated: true }],
    ['CP2', { id: 'CP2', type: 'candidate-pair', localCandidateId: 'L2', currentRoundTripTime: 9, state: 'failed' }],
    ['L1', { id: 'L1', type: 'local-candidate', candidateType: 'srflx' }],
    ['L2', { id: 'L2', type: 'local-candidate', candidateType: 'relay' }],
    ['IA', { id: 'IA', type: 'inbound-rtp', kind: 'audio', packetsReceived: o.received, packetsLost: o.lost, jitter: o.jitter ?? 0.01,
      jitterBufferDelay: o.jbDelay ?? 0, jitterBufferEmittedCount: o.emitted ?? 0, concealedSamples: o.concealed ?? 0, totalSamplesReceived: o.samples ?? 0, bytesReceived: o.bytesIn ?? 0 }],
    ['OA', { id: 'OA', type: 'outbound-rtp', kind: 'audio', packetsSent: o.sent, bytesSent: o.bytesOut ?? 0 }],
    ['RIA', { id: 'RIA', type: 'remote-inbound-rtp', kind: 'audio', packetsLost: o.remoteLost, fractionLost: o.fraction ?? 0, jitter: 0.004, roundTripTime: 0.07 }],
  ]);
}

describe('readStats / sampleBetween', () => {
  it('reads both directions, the selected pair and the derived figures', () => {
    const a = readStats(report({ received: 100, lost: 0, sent: 100, remoteLost: 0, emitted: 0, jbDelay: 0, samples: 0 }), 0);
    const b = readStats(report({ received: 190, lost: 10, sent: 300, remoteLost: 4, fraction: 0.02, rtt: 0.08, jitter: 0.012, bytesIn: 12_500, bytesOut: 25_000, jbDelay: 4800, emitted: 96_000, concealed: 4800, samples: 96_000 }), 2000);
    expect(b.candidateType).toBe('srflx');
    expect(b.rttMs).toBe(80);
    const s = sampleBetween(a, b);
    // inbound: 10 lost of 100 expected; outbound: the last receiver report lost 2 %
    expect(s.inboundLossPct).toBeCloseTo(10, 6);
    expect(s.outboundLossPct).toBeCloseTo(2, 6);
    expect(s.packetLossPct).toBeCloseTo(10, 6);
    expect(s.jitterMs).toBeCloseTo(12, 6);
    expect(s.jitterBufferMs).toBeCloseTo(50, 6);
    expect(s.concealmentPct).toBeCloseTo(5, 6);
    expect(s.inboundKbps).toBeCloseTo(50, 6);
    expect(s.outboundKbps).toBeCloseTo(100, 6);
    expect(s.mos).not.toBeNull();
    expect(s.level).toBe('fair');
  });

  it('reads the bytes the path received: the selected pair\'s (the heartbeat\'s sign of a live path)', () => {
    const r = report({ received: 1, lost: 0, sent: 1, remoteLost: 0 });
    r.set('CP1', { ...r.get('CP1')!, bytesReceived: 4321 });
    r.set('CP2', { ...r.get('CP2')!, bytesReceived: 9 });
    expect(readStats(r, 0).pathBytesReceived).toBe(4321);
    // Firefox-like: no transport entry, the nominated pair
    r.delete('T1');
    expect(readStats(r, 0).pathBytesReceived).toBe(4321);
    expect(readStats(new Map(), 0).pathBytesReceived).toBeNull();
  });

  it('is unknown while nothing flowed', () => {
    const a = readStats(new Map(), 0);
    const s = sampleBetween(a, readStats(new Map(), 1000));
    expect(s).toMatchObject({ level: 'unknown', mos: null, rttMs: null, packetLossPct: null });
  });
});

describe('QualitySampler', () => {
  /** A FakeClock whose advance() also lets the sampler's getStats() promise settle. */
  function fakeClock() {
    const clock = new FakeClock(0);
    return { clock, advance: (ms: number) => clock.advance(ms) };
  }

  it('samples once per tick over a window of the last readings, and starts over on reset()', async () => {
    const t = fakeClock();
    let received = 0;
    let lost = 0;
    const samples: QualitySample[] = [];
    const sampler = new QualitySampler({
      getStats: () => Promise.resolve(report({ received, lost, sent: received, remoteLost: 0 })),
      onSample: (s) => samples.push(s),
      windowMs: 3000,
      clock: t.clock,
    });
    sampler.start();
    for (let i = 0; i < 6; i++) {
      received += 50;
      if (i >= 3) lost += 5; // the last three seconds lose 5 of 55
      await t.advance(1000);
    }
    expect(samples).toHaveLength(5);
    // window of 3 s: the last sample covers seconds 3..6 only
    expect(samples.at(-1)!.inboundLossPct).toBeCloseTo((100 * 15) / 165, 6);
    sampler.reset();
    received = 10; // a new connection's counters
    lost = 0;
    await t.advance(1000);
    expect(samples).toHaveLength(5);
    received = 60;
    await t.advance(1000);
    expect(samples.at(-1)!.inboundLossPct).toBe(0);
    sampler.stop();
    await t.advance(5000);
    expect(samples).toHaveLength(6);
  });

  it('takes nothing while there is no connection', async () => {
    const t = fakeClock();
    const samples: QualitySample[] = [];
    const sampler = new QualitySampler({ getStats: () => undefined, onSample: (s) => samples.push(s), clock: t.clock });
    sampler.start();
    await t.advance(1000);
    await t.advance(1000);
    expect(samples).toEqual([]);
  });
});

describe('summarizeQuality', () => {
  const sample = (mos: number | null, rtt: number | null, loss: number | null): QualitySample => ({
    at: 0, level: 'good', mos, rttMs: rtt, jitterMs: rtt === null ? null : rtt / 10, packetLossPct: loss,
    inboundLossPct: null, outboundLossPct: null, jitterBufferMs: null, concealmentPct: null, inboundKbps: null, outboundKbps: null, candidateType: null,
  });

  it('sums up samples as CONTRACT.md says', () => {
    const samples = [sample(4.4, 20, 0), sample(4.0, 40, 2), sample(3.5, 100, 4), sample(null, null, null)];
    expect(summarizeQuality(samples, 2)).toEqual({
      samples: 4,
      mos: { min: 3.5, mean: 3.97 },
      rttMs: { p50: 40, p95: 100 },
      jitterMs: { p50: 4, p95: 10 },
      packetLossPct: { mean: 2, max: 4 },
      reconnects: 2,
    });
    expect(summarizeQuality([], 0)).toEqual({
      samples: 0, mos: { min: null, mean: null }, rttMs: { p50: null, p95: null }, jitterMs: { p50: null, p95: null },
      packetLossPct: { mean: null, max: null }, reconnects: 0,
    });
  });

  it('takes percentiles by nearest rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });
});
