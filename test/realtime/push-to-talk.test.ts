import wrtc from '@roamhq/wrtc';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeMicrophone, startEmulator, type Emulator } from 'kb-voice-emulator';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type Turn } from '../../src/client/index.js';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { nextTurn } from '../client/helpers/turns.js';

// Push-to-talk on the emulator over a real call (VoiceSession, FakeMicrophone, @roamhq/wrtc on
// loopback): the release's `input.commit` ends the caller's utterance at once. The emulator's VAD
// hangover is set far longer than the test waits, so an answer proves the commit ended the turn:
// without it the question would wait out the hangover.

const HANGOVER_MS = 15_000;

let emu: Emulator;
const cleanups: Array<() => void | Promise<void>> = [];

beforeEach(async () => {
  emu = await startEmulator({ port: 0, agentBuildMs: 10, realtime: { vad: { stopMs: HANGOVER_MS } } });
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await emu.close();
});

describe('push-to-talk on the emulator', () => {
  it('a released question is answered without waiting for the hangover', async () => {
    const mic = new FakeMicrophone({ emulatorUrl: emu.url });
    const session = new VoiceSession({
      aiId: emu.fixtures.robotId, api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), wrtc: wrtc as never,
      microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter, turnTaking: 'push-to-talk',
    });
    cleanups.push(async () => {
      await session.end({ mode: 'immediate' });
      mic.close();
    });
    const order: string[] = [];
    session.on('talking', (on) => order.push(on ? 'talk' : 'release'));
    session.on('turn', () => order.push('turn'));
    await session.start();

    const question = 'How long is the warranty?';
    const answered: Promise<Turn> = nextTurn(session, HANGOVER_MS - 3000);
    session.talk(true);
    await mic.say(question, { sessionId: session.sessionId! });
    session.talk(false);
    const turn = await answered;

    expect(order).toEqual(['talk', 'release', 'turn']);
    expect(turn).toMatchObject({ id: 1, input: 'voice', question, interrupted: false });
    expect(turn.answer.length).toBeGreaterThan(0);
    // The service detected the end of speech from the commit, not from silence after it.
    expect(turn.timing.endpointingMs).not.toBeNull();
    expect(turn.timing.endpointingMs!).toBeLessThan(HANGOVER_MS);
  });
});
