import { afterAll, describe, expect, it, vi } from 'vitest';
import { fixture48k, realtimeFixture, sleep } from './helpers.js';

/** Once armed, every file write waits until released (a disk or libuv pool that is slow to answer). */
const slowDisk = vi.hoisted(() => {
  let release!: () => void;
  let onHeld!: () => void;
  return {
    armed: false,
    held: 0,
    /** Resolves when the first write is held (the write starts off the answer's path, so it may start after the answer). */
    firstHeld: new Promise<void>((resolve) => { onHeld = resolve; }),
    noteHeld: () => onHeld(),
    released: new Promise<void>((resolve) => { release = resolve; }),
    release: () => release(),
  };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    writeFile: async (...args: Parameters<typeof actual.writeFile>) => {
      if (slowDisk.armed) {
        slowDisk.held++;
        slowDisk.noteHeld();
        await slowDisk.released;
      }
      return actual.writeFile(...args);
    },
  };
});

// Writing the question's WAV is file I/O on a libuv thread; on a busy machine it took up to 380 ms,
// and the answer used to wait for it. Here the write is held until the answer is already speaking.
describe('the question recording is not on the way to the first answer frame', () => {
  const rt = realtimeFixture({ voice: 'builtin' });
  afterAll(() => slowDisk.release()); // runs before the fixture closes (after-hooks run as a stack)

  it('speaks while the question is still being written, and records the turn once it is', async () => {
    const caller = await rt.connect();
    await caller.waitFor('session.ready');
    slowDisk.armed = true;
    await caller.say(await fixture48k('boil-time.wav'));
    const stopped = await caller.waitFor('input.speech_stopped');
    await caller.waitFor('output.speech_started', (e) => e.turn_id === stopped.turn_id, 10000);
    // The answer speaks with the question's WAV not written: its write is held (or, on a busy
    // machine, not even started yet: it is queued off the answer's path).
    await slowDisk.firstHeld;
    expect(slowDisk.held).toBe(1); // the question's WAV, still being written
    caller.send({ v: 1, type: 'response.interrupt' });
    await sleep(300);
    expect(caller.of('turn.completed')).toHaveLength(0); // the record waits for the recording

    slowDisk.release();
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === stopped.turn_id, 10000);
    expect(done.interrupted).toBe(true);
    const segments = rt.env.ctx.store.audio.find((a) => a.session_id === caller.sessionId).sort((a, b) => a.segment_index - b.segment_index);
    expect(segments.map((a) => [a.segment_index, a.role])).toEqual([[0, 'user'], [1, 'assistant']]);
  });
});
