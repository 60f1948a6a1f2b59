import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeWav, encodeWav } from '../../emulator/src/wav.js';
import { FIXTURE_AUDIO } from './helpers.js';
import { FakeMicrophone, startEmulator, type EmulatorOptions } from 'kb-voice-emulator';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type Turn } from '../../src/client/index.js';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { nextTurn } from '../client/helpers/turns.js';

// Push-to-talk on the emulator over a real call (VoiceSession, FakeMicrophone, @roamhq/wrtc on
// loopback): the release's `input.commit` ends the caller's utterance at once, and the offer's
// `turn_taking` tells the emulator that silence ends none while talk is held.

const HANGOVER_MS = 15_000;

const cleanups: Array<() => void | Promise<void>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An emulator (with `realtime` settings) and a connected push-to-talk call to it; `order` records talk, release and turns. */
async function pushToTalkCall(realtime: EmulatorOptions['realtime'] = {}) {
  const emu = await startEmulator({ port: 0, agentBuildMs: 10, realtime });
  cleanups.push(() => emu.close());
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
  // What the call went through, for a failure's message (a recovery in the middle, say).
  const states: string[] = [];
  session.on('state', (s) => states.push(s.status));
  await session.start();
  return { mic, session, order, states };
}

describe('push-to-talk on the emulator', () => {
  it('a released question is answered without waiting for the hangover', async () => {
    // The emulator's VAD hangover is far longer than the test waits, so an answer proves the commit
    // ended the turn: without it the question would wait out the hangover.
    const { mic, session, order, states } = await pushToTalkCall({ vad: { stopMs: HANGOVER_MS } });
    const question = 'How long is the warranty?';
    const answered: Promise<Turn> = nextTurn(session, HANGOVER_MS - 3000);
    session.talk(true);
    await mic.say(question, { sessionId: session.sessionId! });
    session.talk(false);
    const turn = await answered;

    expect(order).toEqual(['talk', 'release', 'turn']);
    expect(turn, `interruptedBy ${turn.interruptedBy}; states ${states.join(' > ')}`).toMatchObject({ id: 1, input: 'voice', question, interrupted: false });
    expect(turn.answer.length).toBeGreaterThan(0);
    // The service detected the end of speech from the commit, not from silence after it.
    expect(turn.timing.endpointingMs).not.toBeNull();
    expect(turn.timing.endpointingMs!).toBeLessThan(HANGOVER_MS);
  });

  it('a pause longer than the hangover while the caller holds talk ends nothing: the release does (one turn, both parts)', async () => {
    // The emulator's default end of speech (600 ms of silence): the offer's turn_taking tells it the client ends each utterance.
    const { mic, session, order } = await pushToTalkCall();
    // One question said in two parts with 1.5 s between them, the talk button held throughout.
    const part = decodeWav(new Uint8Array(await readFile(join(FIXTURE_AUDIO, 'warranty.wav'))));
    const gap = Math.round(1.5 * part.sampleRate);
    const both = new Int16Array(part.samples.length * 2 + gap);
    both.set(part.samples);
    both.set(part.samples, part.samples.length + gap);
    const question = 'How long is the warranty? I mean the one on the kettle.';
    const answered: Promise<Turn> = nextTurn(session, 20_000);
    session.talk(true);
    await mic.playWav(encodeWav(both, part.sampleRate), { transcript: question, sessionId: session.sessionId! });
    session.talk(false);
    const turn = await answered;

    // Without turn_taking the first part was a turn of its own, answered while the caller still held talk.
    expect(order).toEqual(['talk', 'release', 'turn']);
    expect(turn).toMatchObject({ id: 1, input: 'voice', question, interrupted: false });
  });
});
