import { describe, expect, it } from 'vitest';
import { delayImpairment, estimateMos, lossImpairment, qualityLevel, rFactor, rToMos, LEVEL_THRESHOLDS } from '../../../src/client/quality/index.js';

describe('E-model (ITU-T G.107, simplified for Opus)', () => {
  it('maps R to MOS as G.107 Annex B (published points)', () => {
    // R = 93.2, G.107's default best narrowband call, is MOS 4.41
    expect(rToMos(93.2)).toBeCloseTo(4.41, 2);
    // the R–MOS curve of G.107 Figure B.1 / G.109's category bounds
    expect(rToMos(90)).toBeCloseTo(4.34, 2);
    expect(rToMos(80)).toBeCloseTo(4.02, 2);
    expect(rToMos(70)).toBeCloseTo(3.6, 2);
    expect(rToMos(60)).toBeCloseTo(3.1, 2);
    expect(rToMos(50)).toBeCloseTo(2.58, 2);
    expect(rToMos(-5)).toBe(1);
    expect(rToMos(0)).toBe(1);
    expect(rToMos(100)).toBe(4.5);
    expect(rToMos(120)).toBe(4.5);
  });

  it('computes Ie,eff with Bpl as G.107 §7.5', () => {
    expect(lossImpairment(0)).toBe(0);
    // G.711 with PLC (Ie 0, Bpl 25.1, G.113 App. I) at 2 % random loss: 95·2/(2+25.1)
    expect(lossImpairment(2)).toBeCloseTo(7.01, 2);
    // a codec with Ie 11, Bpl 19 (G.729A+VAD in G.113) at 1 %: 11 + 84·1/(1+19)
    expect(lossImpairment(1, { ie: 11, bpl: 19 })).toBeCloseTo(15.2, 2);
    // bursty loss (BurstR 2) impairs more than random loss of the same rate
    expect(lossImpairment(5, { burstR: 2 })).toBeGreaterThan(lossImpairment(5));
    expect(lossImpairment(100)).toBeCloseTo(95 * 100 / (100 + 25.1), 6);
  });

  it('computes Id with the knee at 177.3 ms', () => {
    expect(delayImpairment(0)).toBe(0);
    expect(delayImpairment(100)).toBeCloseTo(2.4, 6);
    expect(delayImpairment(177.3)).toBeCloseTo(4.255, 3);
    expect(delayImpairment(300)).toBeCloseTo(0.024 * 300 + 0.11 * 122.7, 6);
  });

  it('estimates a MOS that falls with delay and loss', () => {
    // a perfect network still pays the codec delay: R = 93.2 − Id(26.5)
    expect(rFactor({ rttMs: 0, jitterBufferMs: 0, packetLossPct: 0 })).toBeCloseTo(93.2 - 0.024 * 26.5, 6);
    const good = estimateMos({ rttMs: 20, jitterBufferMs: 20, packetLossPct: 0 });
    const lossy = estimateMos({ rttMs: 20, jitterBufferMs: 20, packetLossPct: 5 });
    const far = estimateMos({ rttMs: 600, jitterBufferMs: 40, packetLossPct: 0 });
    expect(good).toBeGreaterThan(4.3);
    expect(lossy).toBeLessThan(good);
    expect(far).toBeLessThan(good);
  });

  it('names levels at G.109 category bounds', () => {
    expect(LEVEL_THRESHOLDS.excellent).toBeCloseTo(4.02, 2);
    expect(qualityLevel(null)).toBe('unknown');
    expect(qualityLevel(4.4)).toBe('excellent');
    expect(qualityLevel(3.8)).toBe('good');
    expect(qualityLevel(3.3)).toBe('fair');
    expect(qualityLevel(2.5)).toBe('poor');
    expect(qualityLevel(rToMos(70))).toBe('good');
  });
});
