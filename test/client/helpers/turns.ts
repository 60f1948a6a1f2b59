import type { Turn, VoiceSession, SessionEvents } from '../../../src/client/index.js';

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

/**
 * What a session did, line by line (ms since the call: state changes, errors, final transcripts,
 * assistant speaking): a wait that times out says why the turn never came (a reconnection, a
 * service error, a question the service never heard) instead of only "timed out".
 */
export function sessionLog(session: VoiceSession): { lines: string[]; toString(): string } {
  const started = Date.now();
  const lines: string[] = [];
  const add = (line: string) => lines.push(`${Date.now() - started} ms ${line}`);
  session.on('state', (state, previous) => add(`state ${previous.status} -> ${JSON.stringify(state)}`));
  session.on('error', (error) => add(`error ${error.code}: ${error.message}`));
  session.on('assistantSpeaking', (speaking) => add(`assistant speaking ${speaking}`));
  session.on('transcript', (u) => u.final && add(`transcript ${u.turnId} ${u.role}: ${u.text.slice(0, 60)}`));
  session.on('turn', (t) => add(`turn ${t.id} interrupted=${t.interrupted}`));
  return { lines, toString: () => lines.join('\n') };
}

/**
 * Resolves once `ready()` holds: checked at once and after each `event` of the session (no polling).
 * On timeout it rejects with what the session did meanwhile (`log`, from {@link sessionLog}).
 */
export function when(session: VoiceSession, event: keyof SessionEvents, ready: () => boolean, timeout: number, log?: { toString(): string }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!ready()) return;
      clearTimeout(timer);
      session.off(event, check);
      resolve();
    };
    const timer = setTimeout(() => {
      session.off(event, check);
      reject(new Error(`no ${String(event)} made it true in ${timeout} ms${log ? `; the session:\n${log}` : ''}`));
    }, timeout);
    session.on(event, check);
    check();
  });
}
