import wrtc from '@roamhq/wrtc';
import { describe, expect, it } from 'vitest';
import { VoiceSession, type Turn } from '../../src/client/index.js';
import { FakeMicrophone } from 'kb-voice-emulator';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { useEmulator } from '../helpers/emulator.js';

// FakeMicrophone's room noise with a Node VoiceSession on a real emulator: words said over café
// noise are a turn; a cough and music played over an answer do not cut it.

const t = useEmulator({ agentBuildMs: 0 });

async function call(run: (mic: FakeMicrophone, session: VoiceSession) => Promise<void>): Promise<void> {
  const mic = new FakeMicrophone({ emulatorUrl: t.emu.url });
  const session = new VoiceSession({ aiId: t.robotId, api: t.api, wrtc: wrtc as never, microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter });
  try {
    await session.start();
    await run(mic, session);
  } finally {
    await session.end({ mode: 'immediate' });
    mic.close();
  }
}

const nextTurn = (session: VoiceSession) => new Promise<Turn>((resolve) => session.once('turn', resolve));

describe('FakeMicrophone noise', () => {
  it("say(text, { noise: 'cafe', snrDb: 10 }) is heard as the caller's turn, words scripted", async () => {
    await call(async (mic, session) => {
      const turn = nextTurn(session);
      await mic.say('How long is the warranty?', { noise: 'cafe', snrDb: 10, sessionId: session.sessionId! });
      expect(await turn).toMatchObject({ input: 'voice', question: 'How long is the warranty?', scripted: true, interrupted: false });
    });
  }, 40000);

  it('noise() over an answer (a cough, then music) does not cut it', async () => {
    await call(async (mic, session) => {
      const turn = nextTurn(session);
      const speaking = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the answer did not start')), 20000);
        const on = (yes: boolean) => {
          if (!yes) return;
          clearTimeout(timer);
          session.off('assistantSpeaking', on);
          resolve();
        };
        session.on('assistantSpeaking', on);
      });
      session.sendText('How do I descale the kettle?');
      await speaking;
      await mic.noise('cough', { durationMs: 1000 });
      await mic.noise('music', { durationMs: 1500, snrDb: 10 });
      const done = await turn;
      expect(done).toMatchObject({ input: 'text', interrupted: false });
      expect(t.emu.context.store.messages.find((m) => m.session_id === session.sessionId)).toHaveLength(1);
    });
  }, 40000);
});
