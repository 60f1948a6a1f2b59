import type { Turn, VoiceSession } from '../../../src/client/index.js';

/** The session's next finished turn; rejects when none arrives within `timeout` ms. */
export function nextTurn(session: VoiceSession, timeout = 20_000): Promise<Turn> {
  return new Promise<Turn>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no turn event in time')), timeout);
    session.once('turn', (t) => {
      clearTimeout(timer);
      resolve(t);
    });
  });
}

/**
 * Asks by text and cuts the spoken answer as soon as it starts: the turn completes without waiting
 * for the whole answer to play.
 */
export async function askAndInterrupt(session: VoiceSession, text: string): Promise<Turn> {
  const done = nextTurn(session);
  const speaking = new Promise<void>((resolve) => {
    const on = (v: boolean) => {
      if (!v) return;
      session.off('assistantSpeaking', on);
      resolve();
    };
    session.on('assistantSpeaking', on);
  });
  session.sendText(text);
  await speaking;
  session.interrupt();
  return done;
}
