#!/usr/bin/env node
// Benchmark: noise, echo and barge-in (docs/real-world.md "Noise, echo and barge-in").
//
// Node VoiceSession callers (@roamhq/wrtc, FakeMicrophone) on the emulator's service model with
// its default turn-taking (built-in voice, warm agent):
// - answers cut per 100 answers, per noise fixture × caller path: a typed question, and the
//   fixture played into the microphone (FakeMicrophone.noise, 1.5 s from the answer's first audio);
//   an answer counts as cut when its turn ends interrupted. Target 0 with the defaults.
// - real barge-in: a spoken question over an answer, from its speech onset (the fixture's first
//   0.3 s are silence) to the answer's audio stopping at the caller (the last loud 10 ms frame
//   received before >= 200 ms of quiet), p50/p95. Target p50 <= 600 ms.
//
// Columns are caller paths (COLUMNS): this file measures the Node caller (no browser audio
// processing); the browser paths (`browser`, `rnnoise`, rnnoise + gate) are added as columns by
// the client's benchmark. BENCH_NOISE_ANSWERS (default 3) answers per cell, BENCH_BARGE_INS
// (default 6) spoken interruptions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { benchDir, log, runBenchmark, withTimeout } from './lib/common.mjs';
import { loadClient, loadEmulator, loadWrtc } from './lib/kb.mjs';
import { percentile, round } from './lib/stats.mjs';

const ANSWERS = Number(process.env.BENCH_NOISE_ANSWERS ?? 3);
const BARGE_INS = Number(process.env.BENCH_BARGE_INS ?? 6);
const QUESTION = 'How long is the warranty?';
/** Noise level: dB under the nominal speech level (-26 dBFS). Babble is speech: only distant babble is background. */
const SNR_DB = { beeps: 10, tones: 10, cough: 10, keyboard: 10, fan: 10, hum: 10, music: 10, babble: 20, cafe: 20 };
/** Caller paths measured here; the client's benchmark adds the browser ones. */
const COLUMNS = [{ id: 'node', label: 'Node caller (no client processing)' }];
const LOUD = 1000; // peak of a received frame that carries the answer's voice
const QUIET_MS = 200;

async function call(emulator, run) {
  const { VoiceSession, createApiClient } = await loadClient();
  const { FakeMicrophone } = await loadEmulator();
  const wrtc = await loadWrtc();
  const fx = emulator.fixtures;
  const api = createApiClient({ baseUrl: emulator.url, apiKey: fx.apiKey });
  const mic = new FakeMicrophone({ emulatorUrl: emulator.url });
  const session = new VoiceSession({ aiId: fx.robotId, api, wrtc, microphone: mic.open, language: 'en' });
  try {
    await withTimeout(session.start(), 20_000, 'session.start');
    return await run({ session, mic, wrtc });
  } finally {
    await session.end({ mode: 'immediate' }).catch(() => {});
    mic.close();
  }
}

const nextTurn = (session) => withTimeout(new Promise((resolve) => session.once('turn', resolve)), 60_000, 'turn');
/** Resolves when the assistant's audio starts. */
const speaking = (session) => withTimeout(new Promise((resolve) => {
  const on = (yes) => { if (yes) { session.off('assistantSpeaking', on); resolve(); } };
  session.on('assistantSpeaking', on);
}), 30_000, 'answer audio');

/** Received audio at the caller: 10 ms frames with the time each arrived and whether it was loud. */
function receiver(session, wrtc) {
  const frames = [];
  const track = session.remoteStream?.getAudioTracks()[0];
  if (!track) throw new Error('no remote audio track');
  const sink = new wrtc.nonstandard.RTCAudioSink(track);
  sink.ondata = (d) => {
    let peak = 0;
    for (const s of d.samples) peak = Math.max(peak, Math.abs(s));
    frames.push({ at: performance.now(), loud: peak > LOUD });
  };
  return { frames, stop: () => sink.stop() };
}

/** When the answer's audio stopped after `from`: the last loud frame followed by QUIET_MS of quiet. */
function audioStoppedAt(frames, from) {
  let lastLoud = null;
  for (const f of frames) {
    if (f.at < from) continue;
    if (f.loud) lastLoud = f.at;
    else if (lastLoud !== null && f.at - lastLoud >= QUIET_MS) return lastLoud;
  }
  return null;
}

async function main() {
  const { startEmulator, NOISE_NAMES, NOISE_FIXTURES } = await loadEmulator();
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: 0, realtime: { voice: 'builtin' } });
  const notes = [];
  try {
    // Rows: fixture → column → { answers, cut }.
    const rows = {};
    for (const name of NOISE_NAMES) {
      rows[name] = {};
      for (const col of COLUMNS) {
        const cell = { answers: 0, cut: 0 };
        rows[name][col.id] = cell;
        await call(emulator, async ({ session, mic }) => {
          for (let i = 0; i < ANSWERS; i++) {
            const turn = nextTurn(session);
            const audio = speaking(session);
            session.sendText(QUESTION);
            await audio;
            await mic.noise(name, { snrDb: SNR_DB[name], durationMs: 1500, seed: i + 1 });
            const done = await turn;
            cell.answers++;
            if (done.interrupted) cell.cut++;
          }
        });
        log(`${name} × ${col.id}: ${cell.cut}/${cell.answers} cut`);
      }
    }

    // Real barge-in: a spoken question over the answer.
    const wav = readFileSync(path.join(benchDir, '..', 'test', 'fixtures', 'audio', 'warranty.wav'));
    const latencies = [];
    let missed = 0;
    await call(emulator, async ({ session, mic, wrtc }) => {
      const rx = receiver(session, wrtc);
      try {
        for (let i = 0; i < BARGE_INS; i++) {
          const turn = nextTurn(session);
          const audio = speaking(session);
          session.sendText('How do I descale the kettle?');
          await audio;
          const sentAt = performance.now();
          // Scripted words: the spoken question becomes its own turn; its answer is stopped at once.
          const played = mic.playWav(wav, { transcript: QUESTION, sessionId: session.sessionId });
          const first = await turn;
          // The cut answer is over (not speaking); the spoken question's answer is next.
          const second = nextTurn(session);
          const secondAudio = speaking(session);
          await played;
          await secondAudio;
          const stoppedAt = audioStoppedAt(rx.frames, sentAt + 300);
          if (!first.interrupted || stoppedAt === null) missed++;
          else latencies.push(stoppedAt - (sentAt + 300));
          session.interrupt();
          await second;
        }
      } finally {
        rx.stop();
      }
    });

    const figures = [];
    let allZero = true;
    for (const name of NOISE_NAMES) {
      for (const col of COLUMNS) {
        const { answers, cut } = rows[name][col.id];
        const per100 = answers ? (cut / answers) * 100 : NaN;
        if (cut > 0) allZero = false;
        figures.push({ label: `Answers cut per 100: ${name} (${SNR_DB[name]} dB SNR) × ${col.id}`, value: `${round(per100, 0)} (${cut}/${answers})`, target: '0 with the defaults', met: answers > 0 && cut === 0 });
      }
    }
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    figures.push({ label: 'Real barge-in: speech onset → answer audio stopped (p50 / p95)', value: `${round(p50, 0)} / ${round(p95, 0)} ms (${latencies.length} of ${BARGE_INS}${missed ? `, ${missed} not cut` : ''})`, target: 'p50 <= 600 ms', met: latencies.length > 0 && p50 <= 600 });
    notes.push(`${ANSWERS} answers per cell; noise = kb-voice-emulator/lab fixtures (${NOISE_NAMES.map((n) => `${n}: ${NOISE_FIXTURES[n]}`).join('; ')})`);
    notes.push('columns: caller paths; this file measures the Node caller (FakeMicrophone straight into WebRTC); the browser paths are the client benchmark\'s');
    return {
      name: 'noise-barge-in', title: 'Noise, echo and barge-in (service model defaults)',
      ok: allZero && latencies.length > 0 && p50 <= 600,
      figures,
      details: { columns: COLUMNS, rows, snrDb: SNR_DB, bargeInMs: latencies.map((x) => round(x, 1)), missed },
      notes,
    };
  } finally {
    await emulator.close().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('noise-barge-in', 'Noise, echo and barge-in', main);
}
