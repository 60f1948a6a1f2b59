#!/usr/bin/env node
// A process of capacity callers (bench/capacity.mjs, benchmark 6): Node VoiceSessions over
// @roamhq/wrtc, each with a FakeMicrophone, driven by its parent (bench/lib/caller-pool.mjs) over
// the IPC channel of child_process.fork. Callers live in processes of their own so that one event
// loop is not what limits the ramp, and so that a native crash in wrtc ends this process only: the
// parent sees the exit (and its signal) and reports it.
//
// Messages (each answered with the same `id`, through kb-voice-qa's serveParent: kb-voice-qa/load):
//   { id, op: 'connect', target: { url, apiKey, aiId }, sessions: [{ index, delayMs }], idleAudio }
//     -> { connected: [index], failed: [{ index, error }] }
//   { id, op: 'speak', speakers: [{ index, delayMs, fixture: { name, transcript } }], answerPlayMs, turnTimeoutMs }
//     -> { results: [{ index, firstResponseMs, answer } | { index, error }] }
//   { id, op: 'end' } -> {}   (every session of the round ends, every microphone closes)
import fs from 'node:fs';
import path from 'node:path';
import { sleep, withTimeout } from './common.mjs';
import { loadClient, loadEmulator, loadWrtc } from './kb.mjs';
import { FIXTURE_AUDIO, nextEvent } from './node-caller.mjs';

// The parent (caller-pool.mjs) built dist/ before forking this.
const { serveParent } = await import('kb-voice-qa/load');
const { VoiceSession, createApiClient } = await loadClient();
const { FakeMicrophone } = await loadEmulator();
const wrtc = await loadWrtc();
const wavs = new Map();
const wav = (name) => wavs.get(name) ?? wavs.set(name, fs.readFileSync(path.join(FIXTURE_AUDIO, name))).get(name);

/** The round's callers by index. */
let callers = new Map();

async function connect({ target, sessions, idleAudio }) {
  const api = createApiClient({ baseUrl: target.url, apiKey: target.apiKey });
  for (const { index } of sessions) {
    // idleAudio 'none': the microphone sends frames only while it speaks (and a silence tail after).
    const mic = new FakeMicrophone({ emulatorUrl: target.url, sendSilence: idleAudio === 'silence' });
    callers.set(index, { mic, session: new VoiceSession({ aiId: target.aiId, api, wrtc, microphone: mic.open, language: 'en' }) });
  }
  const settled = await Promise.allSettled(sessions.map(({ index, delayMs }) => sleep(delayMs).then(() => withTimeout(callers.get(index).session.start(), 30000, 'start'))));
  return {
    connected: sessions.filter((_, i) => settled[i].status === 'fulfilled').map((s) => s.index),
    failed: sessions.flatMap((s, i) => (settled[i].status === 'rejected' ? [{ index: s.index, error: String(settled[i].reason?.message ?? settled[i].reason) }] : [])),
  };
}

/** One caller: wait `delayMs`, speak a scripted fixture, let the answer play a while, resolve the Turn. */
async function converse({ index, delayMs, fixture }, answerPlayMs, turnTimeoutMs) {
  const { session, mic } = callers.get(index);
  await sleep(delayMs);
  const seen = [];
  const note = (what) => () => seen.push(what);
  session.on('userSpeaking', note('user'));
  session.on('assistantSpeaking', note('assistant'));
  const turn = nextEvent(session, 'turn', (t) => t.input === 'voice', turnTimeoutMs);
  const speaking = nextEvent(session, 'assistantSpeaking', (on) => on === true, turnTimeoutMs);
  speaking.then(() => sleep(answerPlayMs)).then(() => {
    try {
      session.interrupt(); // harmless when the answer already ended
    } catch { /* the session is gone: the turn wait reports it */ }
  }, () => {});
  turn.catch(() => {});
  try {
    await mic.playWav(wav(fixture.name), { transcript: fixture.transcript, sessionId: session.sessionId });
    const t = await turn;
    if (!t.scripted) throw new Error('the turn did not use the scripted words');
    // An interrupted turn still has its first_response_ms (taken at the first answer frame).
    if (!(t.firstResponseMs > 0)) throw new Error('turn without answer audio');
    return { index, firstResponseMs: t.firstResponseMs, answer: t.answer };
  } catch (err) {
    return { index, error: `${err.message} (${fixture.name}; state ${session.state.status}; events: ${seen.join(',') || 'none'})` };
  }
}

async function end() {
  const round = [...callers.values()];
  callers = new Map();
  await Promise.allSettled(round.map((c) => c.session.end({ mode: 'immediate' })));
  for (const c of round) c.mic.close();
  return {};
}

const handlers = {
  connect,
  speak: async ({ speakers, answerPlayMs, turnTimeoutMs }) => ({ results: await Promise.all(speakers.map((s) => converse(s, answerPlayMs, turnTimeoutMs))) }),
  end,
};

// The parent went away: nothing more to do (the wrtc exit crash, node-webrtc#636, must not hang it).
serveParent((msg) => handlers[msg.op](msg), () => process.exit(0));
