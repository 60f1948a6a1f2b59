#!/usr/bin/env node
// Benchmark 6: emulator capacity. How many concurrent realtime sessions with audio flowing the
// emulator serves on this machine before the assistant's first-answer latency doubles.
//
// The emulator runs in a process of its own (bench/lib/emulator-child.mjs; warm robot,
// agentBuildMs 10, built-in voice so the run does not depend on espeak-ng); this process runs the
// callers: Node VoiceSessions over @roamhq/wrtc, each with a microphone streaming 48 kHz audio
// continuously (silence, then a speech WAV fixture from test/fixtures/audio). Levels ramp
// 1, 2, 4, 8, 12, 16… sessions. At each level all sessions connect, then speak one question each,
// onsets staggered over STAGGER_MS (synchronized onsets would measure a burst, not concurrency),
// and the assistant's answer plays for ANSWER_PLAY_MS before the caller interrupts it (bounding
// the run), so audio flows both ways while later turns are answered. Measured: the median of the
// emulator's first_response_ms (end of speech -> first answer audio frame) at each level vs the
// 1-session baseline: BASELINE_RUNS fresh one-session runs (each level's turns are also the
// first turn of a fresh session), after one discarded warm-up run.
// The ramp stops at the first level whose median exceeds 2× the baseline, or at MAX_SESSIONS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmtMs, log, runBenchmark, sleep, withTimeout } from './lib/common.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { loadClient, loadEmulator, loadWrtc } from './lib/kb.mjs';
import { FIXTURE_AUDIO, nextEvent } from './lib/node-caller.mjs';
import { median, round } from './lib/stats.mjs';

const LEVELS = [1, 2, 4, 8, 12, 16, 20, 24, 28, 32];
const MAX_SESSIONS = Number(process.env.BENCH_CAPACITY_MAX ?? 32);
const BUDGET_MS = Number(process.env.BENCH_CAPACITY_BUDGET_MS ?? 150_000);
const BASELINE_RUNS = 4;
const ANSWER_PLAY_MS = 2000;
const STAGGER_MS = 2000;
const TURN_TIMEOUT_MS = 30_000;
const SPEECH_FIXTURES = ['boil-time.wav', 'descale.wav', 'warranty.wav'];

function loadFixtures() {
  // The spoken questions of test/fixtures/audio/README.md (the folder also holds non-speech files).
  const files = SPEECH_FIXTURES.filter((f) => fs.existsSync(path.join(FIXTURE_AUDIO, f)));
  if (files.length === 0) throw new Error(`none of ${SPEECH_FIXTURES.join(', ')} in ${FIXTURE_AUDIO}`);
  return files.map((f) => ({ name: f, wav: fs.readFileSync(path.join(FIXTURE_AUDIO, f)) }));
}

export async function main() {
  const { VoiceSession, createApiClient } = await loadClient();
  const { FakeMicrophone } = await loadEmulator();
  const wrtc = await loadWrtc();
  const fixtures = loadFixtures();
  const emulator = await startEmulatorProcess({ agentBuildMs: 10, realtime: { voice: 'builtin' } });
  const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const aiId = emulator.fixtures.robotId;
  await api.realtime.warmup(aiId, { language: 'en' }); // warm robot: no turn pays the build
  const started = performance.now();
  let fixtureCursor = 0; // rotates the questions across every turn of the run

  /** One session: wait `delayMs`, speak a fixture, let the answer play a while, resolve the Turn. */
  async function converse(session, mic, fixture, delayMs) {
    await sleep(delayMs);
    const seen = [];
    const note = (what) => () => seen.push(what);
    session.on('userSpeaking', note('user'));
    session.on('assistantSpeaking', note('assistant'));
    const turn = nextEvent(session, 'turn', (t) => t.input === 'voice', TURN_TIMEOUT_MS);
    const speaking = nextEvent(session, 'assistantSpeaking', (on) => on === true, TURN_TIMEOUT_MS);
    speaking.then(() => sleep(ANSWER_PLAY_MS)).then(() => {
      try {
        session.interrupt(); // harmless when the answer already ended
      } catch { /* the session is gone: the turn wait reports it */ }
    }, () => {});
    turn.catch(() => {});
    await mic.playWav(fixture.wav);
    try {
      return await turn;
    } catch (err) {
      throw new Error(`${err.message} (${fixture.name}; state ${session.state.status}; events: ${seen.join(',') || 'none'})`);
    }
  }

  async function level(n) {
    const mics = Array.from({ length: n }, () => new FakeMicrophone());
    const sessions = mics.map((mic) => new VoiceSession({ aiId, api, wrtc, microphone: mic.open, language: 'en' }));
    const cpu0 = emulator.cpuSeconds();
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    try {
      const connected = await Promise.allSettled(sessions.map((s) => withTimeout(s.start(), 30000, 'start')));
      const failedConnects = connected.filter((c) => c.status === 'rejected').length;
      const live = sessions.map((s, i) => ({ s, mic: mics[i] })).filter((_, i) => connected[i].status === 'fulfilled');
      const samples = [];
      const failures = [];
      {
        const results = await Promise.allSettled(
          live.map(({ s, mic }, i) => converse(s, mic, fixtures[fixtureCursor++ % fixtures.length], Math.round((i * STAGGER_MS) / Math.max(1, live.length)) + 300)),
        );
        for (const r of results) {
          // An interrupted turn still has its first_response_ms (taken at the first answer frame).
          if (r.status === 'fulfilled' && r.value.firstResponseMs > 0) samples.push(r.value.firstResponseMs);
          else failures.push(r.status === 'rejected' ? String(r.reason?.message ?? r.reason) : 'turn without answer audio');
        }
      }
      const wallS = (performance.now() - t0) / 1000;
      const cpu1 = emulator.cpuSeconds();
      const own = process.cpuUsage(own0);
      return {
        sessions: n, connected: live.length, failedConnects, samples, failures,
        medianFirstResponseMs: median(samples),
        emulatorCpuShare: cpu0 !== null && cpu1 !== null ? round((cpu1 - cpu0) / wallS, 3) : null,
        callerCpuShare: round((own.user + own.system) / 1e6 / wallS, 3),
        wallS: round(wallS, 1),
      };
    } finally {
      await Promise.allSettled(sessions.map((s) => s.end({ mode: 'immediate' })));
      for (const m of mics) m.close();
      await sleep(500); // let the emulator tear the peers down before the next level
    }
  }

  try {
    const levels = [];
    await level(1); // warm-up: the emulator's first turns run cold code paths (JIT, VAD init)
    const runs = [];
    for (let i = 0; i < BASELINE_RUNS; i++) runs.push(await level(1));
    const baseline = {
      ...runs[0], samples: runs.flatMap((r) => r.samples), failures: runs.flatMap((r) => r.failures),
      failedConnects: runs.reduce((a, r) => a + r.failedConnects, 0), wallS: round(runs.reduce((a, r) => a + r.wallS, 0), 1),
      emulatorCpuShare: median(runs.map((r) => r.emulatorCpuShare)), callerCpuShare: median(runs.map((r) => r.callerCpuShare)),
    };
    baseline.medianFirstResponseMs = median(baseline.samples);
    levels.push(baseline);
    const base = baseline.medianFirstResponseMs;
    if (!Number.isFinite(base)) throw new Error(`no baseline: ${baseline.failures.join('; ')}`);
    log(`capacity: 1 session: median first_response ${base} ms (${baseline.samples.join(', ')})`);
    let capacity = 1;
    let stopReason = `reached the bounded maximum of ${MAX_SESSIONS} sessions`;
    for (const n of LEVELS.filter((x) => x > 1 && x <= MAX_SESSIONS)) {
      if (performance.now() - started > BUDGET_MS) {
        stopReason = `time budget (${BUDGET_MS / 1000} s) reached before ${n} sessions`;
        break;
      }
      const r = await level(n);
      levels.push(r);
      const ratio = r.medianFirstResponseMs / base;
      log(`capacity: ${n} sessions: median first_response ${fmtMs(r.medianFirstResponseMs, 0)} (${ratio.toFixed(2)}× baseline), ${r.connected}/${n} connected, ${r.failures.length} failed turn(s), emulator CPU ${r.emulatorCpuShare ?? 'n/a'}, ${r.wallS} s`);
      const degraded = !(ratio <= 2) || r.failedConnects > 0 || r.failures.length > 0;
      if (degraded) {
        stopReason = r.failedConnects || r.failures.length
          ? `${n} sessions: ${r.failedConnects} failed connection(s), ${r.failures.length} failed turn(s) (${r.failures.slice(0, 2).join('; ')})`
          : `${n} sessions: median first answer ${ratio.toFixed(2)}× the 1-session baseline`;
        break;
      }
      capacity = n;
    }
    const reachedMax = stopReason.startsWith('reached');
    return {
      name: 'capacity',
      title: '6. Emulator capacity (concurrent sessions before first answer latency doubles)',
      ok: true,
      figures: [
        {
          label: 'Concurrent sessions with audio both ways, first answer <= 2× the 1-session baseline',
          value: `${reachedMax ? '>= ' : ''}${capacity} (baseline ${fmtMs(base, 0)}; stopped: ${stopReason})`,
        },
        {
          label: 'Median first_response_ms by sessions',
          value: levels.map((l) => `${l.sessions}: ${fmtMs(l.medianFirstResponseMs, 0)} (${(l.medianFirstResponseMs / base).toFixed(2)}×)`).join(', '),
        },
      ],
      details: { capacity, reachedMax, baselineMs: base, stopReason, levels, config: { LEVELS, MAX_SESSIONS, STAGGER_MS, BASELINE_RUNS, ANSWER_PLAY_MS, voice: 'builtin', agentBuildMs: 10 } },
      notes: [
        `emulator in its own process (built-in voice, warm robot), callers (Node wrtc VoiceSessions streaming WAV fixtures) in another; speech onsets staggered over ${STAGGER_MS} ms; each answer plays ${ANSWER_PLAY_MS} ms, then is interrupted; baseline: ${BASELINE_RUNS} fresh 1-session runs`,
        `CPU share (cores busy) by level, emulator / callers: ${levels.map((l) => `${l.sessions}: ${l.emulatorCpuShare ?? 'n/a'} / ${l.callerCpuShare}`).join(', ')}; machine load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end (other work on the machine shares the 2 cores)`,
      ],
    };
  } finally {
    await emulator.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('capacity', '6. Emulator capacity', main);
}
