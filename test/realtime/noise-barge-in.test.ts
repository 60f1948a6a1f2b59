import { beforeAll, describe, expect, it } from 'vitest';
import { generateNoise, noiseAtSnr, type NoiseName } from '../../emulator/src/lab/noise.js';
import { resample } from '../../emulator/src/realtime/pcm.js';
import { fixture48k, realtimeFixture, type Caller } from './helpers.js';

// Noise, echo and barge-in with real WebRTC callers through the emulator, with the default
// settings: sounds that are not speech never cut an answer, the answer's own echo never does,
// speech still does, and a short sound only holds the answer, which then plays on and is recorded
// whole. Outcomes only (events and records), no durations: the machine may be loaded.

const QUESTION = 'How do I descale the kettle?';

/** Noise at `snrDb` below the nominal speech level, as 48 kHz samples for the caller's microphone. */
function noise48k(name: NoiseName, snrDb: number, durationMs = 1500): Int16Array {
  return resample(noiseAtSnr(generateNoise(name, { durationMs, seed: 11 }), snrDb), 16000, 48000);
}

/** A typed question; resolves once its answer's audio is playing. */
async function ask(caller: Caller, turnId: number): Promise<void> {
  caller.send({ v: 1, type: 'input.text', text: QUESTION });
  await caller.waitFor('output.speech_started', (e) => e.turn_id === turnId, 20000);
}

describe('noise over an answer (defaults)', () => {
  const rt = realtimeFixture({ voice: 'builtin' }, 0);
  beforeAll(() => rt.env.agents.warmup(rt.env.robotId));
  let wholeMs = 0;

  beforeAll(async () => {
    // The answer undisturbed, for its whole length.
    const caller = await rt.connect({}, { ready: true });
    await ask(caller, 1);
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === 1, 30000);
    expect(done.interrupted).toBe(false);
    wholeMs = done.output_duration_ms;
    caller.close();
  }, 40000);

  // Babble is speech: only a distant one (20 dB under the nominal speech level) is background.
  const cases: Array<[NoiseName, number]> = [
    ['beeps', 10], ['tones', 10], ['cough', 10], ['keyboard', 10], ['fan', 10], ['hum', 10], ['music', 10], ['babble', 20], ['cafe', 20],
  ];
  // Calls side by side (at most vitest's maxConcurrency at once): each waits on its own events.
  it.for(cases)('%s at %d dB SNR does not cut the answer, which is recorded whole', { concurrent: true, timeout: 60000 }, async ([name, snr], { expect }) => {
    const caller = await rt.connect({}, { ready: true });
    await ask(caller, 1);
    await caller.say(noise48k(name, snr));
    const stopped = await caller.waitFor('output.speech_stopped', (e) => e.turn_id === 1, 30000);
    expect(stopped.reason).toBe('completed');
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === 1, 10000);
    expect(done).toMatchObject({ interrupted: false, output_duration_ms: wholeMs });
    // No phantom turn either: whatever was heard as speech over the answer (distant babble is
    // speech) was a false interruption, not a turn.
    expect(caller.of('input.speech_stopped').filter((e) => e.false_interruption !== true)).toEqual([]);
    expect(rt.env.ctx.store.messages.find((m) => m.session_id === caller.sessionId)).toHaveLength(1);
    caller.close();
  });

  it("the answer's own echo (speakers: 80 ms later, -12 dB) does not cut it; the caller's speech over it still does", async () => {
    const caller = await rt.connect({}, { ready: true });
    caller.loopback(80, -12);
    await ask(caller, 1);
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === 1, 30000);
    expect(done).toMatchObject({ interrupted: false, output_duration_ms: wholeMs });
    expect(caller.of('output.speech_paused')).toHaveLength(0);

    await ask(caller, 2);
    await caller.waitFor('transcript.delta', (e) => e.turn_id === 2);
    await caller.say(await fixture48k('warranty.wav'));
    const cut = await caller.waitFor('output.speech_stopped', (e) => e.turn_id === 2, 20000);
    expect(cut.reason).toBe('interrupted');
    expect(await caller.waitFor('turn.completed', (e) => e.turn_id === 2)).toMatchObject({ interrupted: true });
    caller.close();
  }, 60000);
});

describe('a false interruption', () => {
  const rt = realtimeFixture({ voice: 'builtin' }, 0);
  beforeAll(() => rt.env.agents.warmup(rt.env.robotId));

  it('a word over the answer holds it, then it resumes where it stopped and is recorded whole', async () => {
    const undisturbed = await rt.connect({}, { ready: true });
    await ask(undisturbed, 1);
    const whole = await undisturbed.waitFor('turn.completed', (e) => e.turn_id === 1, 30000);
    undisturbed.close();

    const caller = await rt.connect({ interruptions: { minSpeechMs: 1500, resumeAfterMs: 400 } }, { ready: true });
    await ask(caller, 1);
    await caller.waitFor('transcript.delta', (e) => e.turn_id === 1);
    // About 0.8 s of the question: speech, but shorter than minSpeechMs.
    const speech = await fixture48k('warranty.wav');
    await caller.say(speech.subarray(Math.round(0.3 * 48000), Math.round(1.1 * 48000)));
    await caller.waitFor('output.speech_paused', (e) => e.turn_id === 1, 20000);
    await caller.waitFor('output.speech_resumed', (e) => e.turn_id === 1, 20000);
    const stopped = await caller.waitFor('output.speech_stopped', (e) => e.turn_id === 1, 30000);
    expect(stopped.reason).toBe('completed');
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === 1, 10000);
    expect(done).toMatchObject({ interrupted: false, false_interruptions: 1, output_duration_ms: whole.output_duration_ms, answer: whole.answer });
    // The speech that held it is not a turn. (Its end is told after the VAD's hangover, which a
    // busy machine can put after the answer's completion: awaited, not looked up.)
    await caller.waitFor('input.speech_stopped', () => true, 20000);
    expect(caller.of('input.speech_stopped')).toEqual([expect.objectContaining({ turn_id: 2, false_interruption: true })]);
    const record = rt.env.ctx.store.messages.find((m) => m.session_id === caller.sessionId);
    expect(record).toHaveLength(1);
    expect(record[0]!.question_metadata).toMatchObject({ interrupted: false });
    caller.close();
  }, 60000);
});
