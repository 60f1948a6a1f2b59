import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type SessionStatus, type Turn } from '../../src/client/index.js';
import { startEmulator } from 'kb-voice-emulator';
import { LabRoute } from 'kb-voice-emulator/lab';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';

// The path dies while an answer plays. The client finds it dead and reconnects; the service, taking
// the new connection, closes the old one, which cuts the answer. That turn's completion was then
// sent to a closed connection and lost: the turn stayed "in progress" for the rest of the call (a
// UI's live caption never settled; kb-voice-qa waited for "no finished turn"). Now the service tells
// it again right after the reconnection's session.ready (`resent`), and the client keeps it as an
// answer cut by the connection (interrupted, by nobody).

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('an answer under way when the path dies', () => {
  it('finishes after the call is restored (cut by nobody), and the call goes on', async () => {
    const route = new LabRoute({ profile: 'none', seed: 1 });
    const emu = await startEmulator({ port: 0, agentBuildMs: 0, network: route, realtime: { voice: 'builtin' } });
    const mic = new FakeMicrophone();
    const session = new VoiceSession({
      aiId: emu.fixtures.robotId, api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), wrtc: wrtc as never,
      microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter,
    });
    cleanups.push(async () => {
      await session.end({ mode: 'immediate' });
      mic.close();
      await emu.close();
    });
    const statuses: SessionStatus[] = [];
    session.on('state', (s) => statuses.push(s.status));
    const turns: Turn[] = [];
    const nextTurn = () => new Promise<Turn>((resolve) => session.once('turn', resolve));
    session.on('turn', (t) => turns.push(t));
    await session.start();

    // A long answer (about 7 s of speech); the path goes dark once it is heard, until the client
    // noticed (however long a loaded machine takes to).
    const speaking = new Promise<void>((resolve) => session.on('assistantSpeaking', (on) => on && resolve()));
    const noticed = new Promise<void>((resolve) => session.on('state', (s) => s.status === 'reconnecting' && resolve()));
    const cut = nextTurn();
    session.sendText('How do I descale it?');
    await speaking;
    route.outage();
    await noticed;
    route.restore();
    const turn = await cut;
    // Cut by the old connection's close (or, on a machine slow enough, played out into the dark
    // path): either way the turn finishes after the reconnection, by nobody's interruption.
    expect(turn).toMatchObject({ input: 'text', question: 'How do I descale it?', interruptedBy: null });
    expect(turn.messageId).not.toBe('');
    expect(statuses.slice(statuses.indexOf('reconnecting'))).toContain('connected');
    expect(session.getSnapshot().live).toBeNull();

    // The call goes on; the cut turn is kept once.
    const next = nextTurn();
    session.sendText('How much do replacement filters cost?');
    expect(await next).toMatchObject({ interrupted: false, answer: expect.stringContaining('980 yen') });
    expect(turns.map((t) => t.question)).toEqual(['How do I descale it?', 'How much do replacement filters cost?']);
    expect((await session.report()).interruptions).toEqual({ byCaller: 0, byApp: 0, false: 0 });
  }, 60_000);
});
