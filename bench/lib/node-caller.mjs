// Helpers for the benchmarks that run VoiceSession outside a browser: waiting for session events
// with deadlines. The microphone is the emulator's own FakeMicrophone (kb-voice-emulator).
import path from 'node:path';
import { root, withTimeout } from './common.mjs';

export const FIXTURE_AUDIO = path.join(root, 'test', 'fixtures', 'audio');

/** Resolves with the first `event` emitted by `emitter` whose args satisfy `test`. */
export function nextEvent(emitter, event, test = () => true, ms = 20000) {
  let handler;
  const p = new Promise((resolve) => {
    handler = (...args) => {
      if (test(...args)) resolve(args.length > 1 ? args : args[0]);
    };
    emitter.on(event, handler);
  });
  return withTimeout(p, ms, `event ${event}`).finally(() => emitter.off(event, handler));
}

/** Waits until the session's warmup is settled (ok or failed). */
export async function warmupSettled(session, ms = 20000) {
  if (session.warmup === 'ok' || session.warmup === 'failed') return session.warmup;
  return nextEvent(session, 'warmup', (s) => s === 'ok' || s === 'failed', ms);
}

/**
 * One text turn: sends `text`, resolves the finished Turn plus the client-side time from sending
 * to the assistant's audio starting. With `interrupt`, the answer is cut as soon as it starts
 * (its first_response_ms is already taken) so a benchmark does not wait for the whole speech.
 */
export async function textTurn(session, text, { interrupt = false, ms = 30000 } = {}) {
  const speaking = nextEvent(session, 'assistantSpeaking', (on) => on === true, ms).catch(() => null);
  const turn = nextEvent(session, 'turn', () => true, ms);
  const t0 = performance.now();
  session.sendText(text);
  let clientFirstAudioMs = null;
  const spoke = await Promise.race([speaking.then((v) => (v === null ? null : performance.now())), turn.then(() => null)]);
  if (spoke !== null) {
    clientFirstAudioMs = spoke - t0;
    if (interrupt) session.interrupt();
  }
  const finished = await turn;
  return { turn: finished, clientFirstAudioMs, totalMs: performance.now() - t0 };
}
