// The one forked-process layer of the load tools (kb-voice-qa/load: ForkedProcess and serveParent),
// under kb-voice-qa's Artillery caller process and bench/'s capacity callers.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ForkedProcess, type ForkedExit } from '../../qa/src/load/forked.js';

const CHILD = fileURLToPath(new URL('./helpers/forked-echo.ts', import.meta.url));

class Crashed extends Error {
  constructor(readonly exit: ForkedExit) {
    super(`exited ${exit.code}`);
  }
}

const opened: ForkedProcess[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((p) => p.close()));
});

function start(extra: { onEvent?(e: Record<string, unknown>): void; onExit?(e: ForkedExit): void } = {}) {
  const forked = new ForkedProcess(CHILD, {
    exitError: (exit) => new Crashed(exit),
    replyError: ({ code, message }) => Object.assign(new Error(message), { code }),
    ...extra,
  });
  opened.push(forked);
  return forked;
}

describe('ForkedProcess and serveParent', () => {
  it('settles each request on its own reply, errors with their code, events to onEvent', async () => {
    const events: Record<string, unknown>[] = [];
    const forked = start({ onEvent: (e) => events.push(e) });
    const [a, b] = await Promise.all([forked.request({ op: 'echo', value: 'a' }), forked.request({ op: 'echo', value: { b: 2 } })]);
    expect([a, b]).toEqual(['a', { b: 2 }]);
    await expect(forked.request({ op: 'fail' })).rejects.toMatchObject({ message: 'refused', code: 'refused_here' });
    expect(await forked.request({ op: 'event', value: 7 })).toBe('after the event');
    expect(events).toEqual([{ event: 'note', value: 7 }]);
  }, 60_000);

  it('fails the pending and every later request with exitError when the child dies, and tells onExit once', async () => {
    const exits: ForkedExit[] = [];
    const forked = start({ onExit: (e) => exits.push(e) });
    await forked.ready;
    const pending = forked.request({ op: 'hang' });
    const dying = forked.request({ op: 'die' });
    await expect(pending).rejects.toBeInstanceOf(Crashed);
    await expect(dying).rejects.toMatchObject({ exit: { code: 3, signal: null, pid: forked.pid } });
    await expect(forked.request({ op: 'echo', value: 1 })).rejects.toBeInstanceOf(Crashed);
    expect(exits).toEqual([{ pid: forked.pid, code: 3, signal: null }]);
    expect(forked.exit).toEqual(exits[0]);
  }, 60_000);

  it('times a request out, and close() ends the child without calling it a crash', async () => {
    const exits: ForkedExit[] = [];
    const forked = start({ onExit: (e) => exits.push(e) });
    await expect(forked.request({ op: 'hang' }, 50)).rejects.toThrow(/hang timed out after 50 ms/);
    await forked.close();
    await forked.close();
    expect(forked.exit).toMatchObject({ code: 0 });
    expect(exits).toEqual([]);
  }, 60_000);
});
