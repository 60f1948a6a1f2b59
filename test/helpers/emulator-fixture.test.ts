import { describe, expect, it } from 'vitest';
import { useEmulator } from './emulator.js';

// Issue 22: realtime-http.test.ts cleared its warmup fault at the end of a test body, so a test that
// failed before that line left the fault on for the next test. The shared fixture resets in
// afterEach, which runs after a failed test too: the first test below fails on purpose
// (`it.fails`) after breaking the emulator's state; the second must find the seeded state.

describe('useEmulator resets after every test, a failed one included', () => {
  const t = useEmulator();

  it.fails('a test that fails after setting faults, warming the robot and deleting a session', async () => {
    await t.setFaults({ warmup: 'fail', latencyMs: 5 });
    await t.api.realtime.warmup(t.robotId).catch(() => undefined);
    t.emu.context.agents.ensureBuilt(t.robotId);
    await t.api.sessions.delete(t.robotId, t.emu.context.store.sessions.all()[0]!.id);
    throw new Error('failed before cleaning up');
  });

  it('the next test finds no fault, a cold robot and every seeded session', async () => {
    expect(t.emu.context.faults).toEqual({ warmup: 'ok', latencyMs: 0 });
    expect(t.emu.context.agents.isBuilt(t.robotId)).toBe(false);
    expect((await t.api.realtime.warmup(t.robotId)).success).toBe(true);
    const seeded = (await (await t.raw('GET', '/_emulator/fixtures', { key: null })).json()) as { robotId: string };
    expect(seeded.robotId).toBe(t.robotId);
    expect(t.emu.context.store.sessions.all().filter((s) => s.deleting)).toEqual([]);
  });
});
