import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeMicrophone } from 'kb-voice-emulator';

// The microphone's pacing (one interval for every open microphone, frames due from the clock) on
// fake time: what it hands to its track after a given time is exact.
const mics: FakeMicrophone[] = [];
const mic = (options?: ConstructorParameters<typeof FakeMicrophone>[0]) => {
  const m = new FakeMicrophone(options);
  mics.push(m);
  return m;
};
/** `ms` of speech at 48 kHz. */
const speech = (ms: number) => new Int16Array((48 * ms)).fill(3000);

// Every test runs on fake time (the microphone paces its frames with timers) and closes its microphones.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  for (const m of mics.splice(0)) m.close();
  vi.useRealTimers();
});

describe('FakeMicrophone pacing', () => {

  it('streams silence all the time by default: 100 frames a second', async () => {
    const m = mic();
    await vi.advanceTimersByTimeAsync(1000);
    expect(m.framesSent).toBe(100);
  });

  it('with sendSilence: false sends nothing between clips, then the clip and its silence tail', async () => {
    const m = mic({ sendSilence: false, silenceTailMs: 500 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(m.framesSent).toBe(0);
    const played = m.play(speech(200));
    await vi.advanceTimersByTimeAsync(205);
    await played;
    expect(m.framesSent).toBe(20);
    await vi.advanceTimersByTimeAsync(2000);
    expect(m.framesSent).toBe(20 + 50); // the tail, then muted again
    // The next clip starts on time (no burst of the muted past) and gets its own tail.
    const again = m.play(speech(100));
    await vi.advanceTimersByTimeAsync(50);
    expect(m.framesSent).toBeGreaterThanOrEqual(70 + 4);
    expect(m.framesSent).toBeLessThanOrEqual(70 + 6);
    await vi.advanceTimersByTimeAsync(55);
    await again;
    await vi.advanceTimersByTimeAsync(1000);
    expect(m.framesSent).toBe(80 + 50);
  });

  it('sends the default tail (1 s: longer than the emulator needs to end an utterance)', async () => {
    const m = mic({ sendSilence: false });
    void m.play(speech(100));
    await vi.advanceTimersByTimeAsync(3000);
    expect(m.framesSent).toBe(10 + 100);
  });

  it('rejects a tail that is not a finite number >= 0', () => {
    expect(() => mic({ sendSilence: false, silenceTailMs: -1 })).toThrow(RangeError);
    expect(() => mic({ silenceTailMs: Number.NaN })).toThrow(RangeError);
  });
});

describe('FakeMicrophone.noise pacing', () => {

  it('plays over whatever goes out, in real time, also on a muted microphone (then its tail)', async () => {
    const m = mic({ sendSilence: false, silenceTailMs: 100 });
    let done = false;
    void m.noise('beeps', { durationMs: 300 }).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(200);
    expect(done).toBe(false);
    expect(m.framesSent).toBeGreaterThanOrEqual(19);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(true);
    expect(m.framesSent).toBe(30 + 10);
    // Over speech: the speech keeps its own length.
    const spoken = m.play(speech(100));
    void m.noise(new Int16Array(48 * 500).fill(100), { snrDb: 20 });
    await vi.advanceTimersByTimeAsync(105);
    await spoken;
    await vi.advanceTimersByTimeAsync(1000);
    expect(m.framesSent).toBe(40 + 50 + 10);
  });
});
