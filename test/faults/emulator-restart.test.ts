import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type SessionState, type VoiceSessionError } from '../../src/client/index.js';
import { FIXTURE_IDS } from 'kb-voice-emulator';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';
import { askAndInterrupt } from '../client/helpers/turns.js';
import { spawnEmulator, type EmulatorProcess } from './helpers/emulator-process.js';

// Issue 10, defect 1: the emulator process is killed (SIGKILL, no cleanup) while a VoiceSession is
// connected, and started again on the same port within reconnectTimeoutMs. The restarted service
// has lost the session's state and numbers turns from 1 again: new turns must still arrive, and
// the client must say that the service started afresh instead of pretending continuity.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function emulator(port?: number): Promise<EmulatorProcess> {
  const p = await spawnEmulator({ ...(port ? { port } : {}), args: ['--agent-build-ms', '50'] });
  cleanups.push(() => p.stop());
  return p;
}


describe('emulator process killed and restarted mid-call', () => {
  it('keeps receiving turns after the restart and reports session_reset', async () => {
    const first = await emulator();
    const mic = new FakeMicrophone();
    const api = createApiClient({ baseUrl: first.url, apiKey: 'kbv-emulator-key' });
    const session = new VoiceSession({
      aiId: FIXTURE_IDS.robotId, api,
      wrtc: wrtc as never, microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter,
      heartbeatIntervalMs: 250, reconnectTimeoutMs: 20_000,
    });
    const states: SessionState[] = [];
    const errors: VoiceSessionError[] = [];
    session.on('state', (s) => states.push(s));
    session.on('error', (e) => errors.push(e));
    cleanups.push(async () => {
      await session.end({ mode: 'immediate' });
      mic.close();
    });

    await session.start();
    const sessionId = session.sessionId!;
    const before = await askAndInterrupt(session, 'How long is the warranty?');
    expect(before.id).toBe(1);

    await first.crash();
    await vi.waitFor(() => expect(session.state.status).toBe('reconnecting'), { timeout: 10_000 });
    const second = await emulator(first.port);
    await vi.waitFor(() => expect(session.state.status).toBe('connected'), { timeout: 20_000 });
    expect(session.sessionId).toBe(sessionId);

    const after = await askAndInterrupt(session, 'How long does the kettle take to boil?');
    const again = await askAndInterrupt(session, 'Can I wash it in the dishwasher?');
    expect(session.turns.map((t) => t.messageId)).toEqual([before.messageId, after.messageId, again.messageId]);
    expect(new Set(session.turns.map((t) => t.messageId)).size).toBe(3);
    // The restarted service knows only what it heard after the restart.
    expect(after.id).toBe(1);

    const resets = errors.filter((e) => e.code === 'session_reset');
    expect(resets, JSON.stringify(errors.map((e) => [e.code, e.message]))).toHaveLength(1);
    expect(resets[0]!.message).toMatch(/resumed: false/);
    // One state per reconnection attempt: compare the sequence of distinct statuses.
    const statuses = states.map((s) => s.status).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);

    // The new service recorded the new turns under the same session id.
    expect(second.url).toBe(first.url);
    const usage = await api.realtime.usage(FIXTURE_IDS.robotId);
    expect(usage.sessions.find((s) => s.session_id === sessionId)?.turn_count).toBe(2);
  }, 90_000);
});
