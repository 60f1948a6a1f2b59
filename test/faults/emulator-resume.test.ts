import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { createMemoryStore, startEmulator, type EmulatorOptions } from 'kb-voice-emulator';
import { Caller, realtimeFixture } from '../realtime/helpers.js';
import { ResumeWindow } from '../../emulator/src/realtime/resume-window.js';

// Issue 10, defect 1, the emulator's side: after a restart it continues a session's turn numbering
// from its stored messages when the store survived, and answers a reconnection for a session it
// does not know with a fresh session the caller can detect (`session.ready` with `resumed: false`).

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function emulator(options: EmulatorOptions = {}) {
  const emu = await startEmulator({ port: 0, agentBuildMs: 50, realtime: { voice: 'builtin' }, ...options });
  cleanups.push(() => emu.close());
  const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
  const connect = async (session_id?: string) => {
    const caller = await Caller.connect((sdp) => api.realtime.connect(emu.fixtures.robotId, { type: 'offer', sdp, language: 'en', ...(session_id ? { session_id } : {}) }));
    cleanups.push(() => caller.close());
    return caller;
  };
  return { emu, api, connect };
}

/** Asks by text and interrupts the spoken answer at once; resolves the turn's `turn.completed`. */
async function ask(caller: Caller, text: string, turnId: number) {
  caller.send({ v: 1, type: 'input.text', text });
  await caller.waitFor('output.speech_started', (e) => e.turn_id === turnId);
  caller.send({ v: 1, type: 'response.interrupt' });
  return caller.waitFor('turn.completed', (e) => e.turn_id === turnId);
}

describe('emulator restart and session continuity', () => {
  it('a first connection has no resumed flag; a reconnection to a live session is resumed: true', async () => {
    const { connect } = await emulator();
    const first = await connect();
    const ready = await first.waitFor('session.ready');
    expect(ready).not.toHaveProperty('resumed');
    await ask(first, 'How long is the warranty?', 1);
    const second = await connect(first.sessionId);
    expect(await second.waitFor('session.ready')).toMatchObject({ session_id: first.sessionId, resumed: true });
    expect((await ask(second, 'How do I descale it?', 2)).turn_id).toBe(2);
  }, 30_000);

  it('continues the numbering from the stored messages when the store survived the restart', async () => {
    const store = createMemoryStore();
    const before = await emulator({ store });
    const caller = await before.connect();
    await caller.waitFor('session.ready');
    await ask(caller, 'How long is the warranty?', 1);
    await ask(caller, 'How do I descale it?', 2);
    const sessionId = caller.sessionId;
    caller.close();
    await before.emu.close();

    const after = await emulator({ store });
    const back = await after.connect(sessionId);
    expect(await back.waitFor('session.ready')).toMatchObject({ session_id: sessionId, resumed: true });
    const turn = await ask(back, 'What is the capacity?', 3);
    expect(turn.turn_id).toBe(3);
    const page = await after.api.sessions.messages(after.emu.fixtures.robotId, { session_id: sessionId });
    expect(page.items).toHaveLength(3);
  }, 40_000);

  it('answers a reconnection for a session it does not know with a fresh session: resumed: false, turns from 1', async () => {
    const { connect, api, emu } = await emulator();
    const caller = await connect('lost-in-a-restart');
    expect(await caller.waitFor('session.ready')).toMatchObject({ session_id: 'lost-in-a-restart', resumed: false });
    expect((await ask(caller, 'How long is the warranty?', 1)).turn_id).toBe(1);
    const page = await api.sessions.messages(emu.fixtures.robotId, { session_id: 'lost-in-a-restart' });
    expect(page.items).toHaveLength(1);
  }, 30_000);
});

// Issue 27: a session stays resumable for `resumeWindowMs` after its last connection closed (a
// reload with `resume: true`); later an offer naming it is refused, so a new conversation is not
// appended to an old one. The window's clock is injected.
describe('resume window', () => {
  let now = 1_000_000;
  const rt = realtimeFixture({ voice: 'builtin', resumeWindowMs: 120_000, now: () => now });

  /** A connected caller, asked one question, then ended; resolves once the service recorded the end. */
  async function endedSession(): Promise<string> {
    const caller = await rt.connect({}, { ready: true });
    await ask(caller, 'How long is the warranty?', 1);
    caller.send({ v: 1, type: 'session.end' });
    await caller.closedByPeer();
    await vi.waitFor(() => expect(rt.env.ctx.store.sessions.get(caller.sessionId)?.ended_at).toBeDefined());
    return caller.sessionId;
  }

  it('continues a dropped session up to resumeWindowMs after its connection closed: same id, turns going on', async () => {
    const sessionId = await endedSession();
    now += 120_000;
    const back = await rt.connect({ session_id: sessionId });
    expect(await back.waitFor('session.ready')).toMatchObject({ session_id: sessionId, resumed: true });
    expect((await ask(back, 'How do I descale it?', 2)).turn_id).toBe(2);
  }, 30_000);

  it('refuses it with 409 once the window has passed, and answers no peer', async () => {
    const sessionId = await endedSession();
    now += 120_001;
    await expect(rt.service.handleOffer(rt.env.robotId, { type: 'offer', sdp: 'v=0', session_id: sessionId })).rejects.toMatchObject({ status: 409, message: expect.stringContaining('resumeWindowMs') });
  }, 30_000);

  it('a live session is resumable whatever its age', async () => {
    const caller = await rt.connect({}, { ready: true });
    now += 10 * 120_000;
    const again = await rt.connect({ session_id: caller.sessionId });
    expect(await again.waitFor('session.ready')).toMatchObject({ session_id: caller.sessionId, resumed: true });
  }, 30_000);

  it('rejects a negative window', () => {
    expect(() => new ResumeWindow(-1)).toThrow(RangeError);
  });
});
