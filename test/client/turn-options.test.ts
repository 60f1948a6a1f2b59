import { readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';
import { startEmulator } from 'kb-voice-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type Turn, type VoiceSessionOptions } from '../../src/client/index.js';
import { sinkLevelMeter } from './helpers/level-meter.js';
import { FakeMicrophone } from './helpers/microphone.js';
import { sessionLog, when } from './helpers/turns.js';

// Turn timing honesty and the barge-in option, through the real emulator over real WebRTC: an
// answer that never played has firstResponseMs null (not 0), in the turn, the report and the
// service's record; with interruptions 'off', speech during an answer becomes the next turn.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function call(options: Partial<VoiceSessionOptions> = {}) {
  const emu = await startEmulator({ port: 0, agentBuildMs: 50 });
  cleanups.push(() => emu.close());
  const mic = new FakeMicrophone();
  const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
  const session = new VoiceSession({
    aiId: emu.fixtures.robotId, api, wrtc: wrtc as never, microphone: mic.open, language: 'en',
    levelMeter: sinkLevelMeter, ...options,
  });
  const turns: Turn[] = [];
  session.on('turn', (t) => turns.push(t));
  const log = sessionLog(session);
  cleanups.push(async () => {
    await session.end({ mode: 'immediate' });
    mic.close();
  });
  await session.start();
  return { emu, api, mic, session, turns, log };
}

describe('turn timing and barge-in', () => {
  it('an answer cut before any audio played has firstResponseMs null, in the turn and the report', async () => {
    const { session, turns, log } = await call();
    session.sendText('How long is the warranty?');
    session.interrupt(); // before the answer's first frame
    await when(session, 'turn', () => turns.length === 1, 15_000, log);
    expect(turns[0]).toMatchObject({ input: 'text', interrupted: true, firstResponseMs: null });
    await session.end();
    const report = await session.report();
    expect(report.turns[0]!.firstResponseMs).toBeNull();
  });

  it("interruptions 'off': speech during an answer is queued as the next turn, the answer is not cut", async () => {
    const { session, turns, mic, log } = await call({ interruptions: 'off' });
    let speaking = false;
    session.on('assistantSpeaking', (v) => (speaking = v));
    session.sendText('How long is the warranty?');
    await when(session, 'assistantSpeaking', () => speaking, 15_000, log);
    await mic.playWav(readFileSync(new URL('../fixtures/audio/boil-time.wav', import.meta.url)));
    await when(session, 'turn', () => turns.length === 2, 40_000, log);
    expect(turns.map((t) => [t.id, t.input, t.interrupted])).toEqual([[1, 'text', false], [2, 'voice', false]]);
    expect(turns[1]!.firstResponseMs).toBeGreaterThan(0);
  }, 60_000);
});
