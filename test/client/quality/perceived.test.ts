import { describe, expect, it } from 'vitest';
import { PerceivedLatencyMeter } from '../../../src/client/quality/index.js';

/** Feeds readings every 100 ms: `input`/`output` give the level at a time. */
function feed(meter: PerceivedLatencyMeter, from: number, to: number, input: (t: number) => number | null, output: (t: number) => number | null) {
  for (let t = from; t <= to; t += 100) meter.level(t, input(t), output(t));
}

/** The latency between the meter's marks (null when it measured none). */
const latency = (m: PerceivedLatencyMeter) => {
  const marks = m.take();
  return marks && marks.heardAt - marks.speechEndAt;
};

describe('PerceivedLatencyMeter', () => {
  it('measures from the last speech reading to the first audible answer reading', () => {
    const m = new PerceivedLatencyMeter();
    // speech 0..1500 with a 300 ms pause inside (under the hangover), the answer audible from 2300
    feed(m, 0, 3000, (t) => (t <= 1500 && !(t > 600 && t < 900) ? 0.7 : 0.1), (t) => (t >= 2300 ? 0.6 : 0));
    expect(latency(m)).toBe(800);
    expect(m.take()).toBeNull(); // taken once
  });

  it('counts an answer that starts within the hangover', () => {
    const m = new PerceivedLatencyMeter({ hangoverMs: 600 });
    feed(m, 0, 1000, (t) => (t <= 500 ? 0.8 : 0), (t) => (t >= 700 ? 0.5 : 0));
    expect(latency(m)).toBe(200);
  });

  it('ignores quiet output and sound before the question ended; speech after the answer keeps the measured value', () => {
    const m = new PerceivedLatencyMeter();
    // an older answer still playing while the caller speaks, a quiet hum after, then the answer
    feed(m, 0, 2500, (t) => (t >= 200 && t <= 1000 ? 0.9 : 0), (t) => (t < 500 ? 0.9 : t < 2000 ? 0.2 : 0.9));
    // the caller barges in at 2600
    feed(m, 2600, 2800, () => 0.9, () => 0.9);
    expect(latency(m)).toBe(1000);
  });

  it('is null without speech, without answer sound, or without levels', () => {
    const m = new PerceivedLatencyMeter();
    feed(m, 0, 2000, () => 0, (t) => (t > 1000 ? 0.9 : 0));
    expect(m.take()).toBeNull();
    feed(m, 2100, 5000, (t) => (t < 3000 ? 0.9 : 0), () => 0);
    expect(m.take()).toBeNull();
    const none = new PerceivedLatencyMeter();
    feed(none, 0, 3000, () => null, () => null);
    expect(none.take()).toBeNull();
    m.reset();
    feed(m, 5100, 5200, () => 0, () => 0.9);
    expect(m.take()).toBeNull();
  });

  it('keeps the quiet end of a sentence as speech: within 24 dB of the utterance peak, above −45 dBFS', () => {
    const m = new PerceivedLatencyMeter();
    // loud to 1000, the last syllable at −33 dBFS (0.45) to 1200, answer from 1900
    const speech = (t: number) => (t <= 1000 ? 0.8 : t <= 1200 ? 0.45 : 0.1);
    feed(m, 0, 2500, speech, (t) => (t >= 1900 ? 0.6 : 0));
    expect(latency(m)).toBe(700); // the fixed −30 dBFS threshold said 900
    // a quiet talker (peak −27 dBFS): the end follows their level, not a fixed one, yet never below −45 dBFS
    const quiet = new PerceivedLatencyMeter();
    feed(quiet, 0, 2500, (t) => (t <= 1000 ? 0.55 : t <= 1200 ? 0.3 : 0.2), (t) => (t >= 1900 ? 0.6 : 0));
    expect(latency(quiet)).toBe(700);
  });
});
