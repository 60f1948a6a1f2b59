#!/usr/bin/env node
// Benchmark 6: emulator capacity. How many concurrent realtime sessions with audio flowing the
// emulator serves on this machine before the assistant's first-answer latency doubles, for each
// answer voice side by side in the same run: the built-in formant voice and Flite (WASI, in worker
// threads). Target: Flite does not lower the capacity.
//
// Each voice has an emulator in a process of its own (bench/lib/emulator-child.mjs; warm robot,
// agentBuildMs 10); levels alternate between the two (ABAB, then BABA at the next level). The
// callers are Node VoiceSessions over @roamhq/wrtc in CALLER_PROCESSES processes of their own
// (bench/lib/caller-child.mjs, driven by bench/lib/caller-pool.mjs; caller i in process i mod
// CALLER_PROCESSES), so one event loop or one wrtc instance is not the limit, and a native crash
// in one (wrtc has crashed with SIGSEGV at 40-48 sessions) is reported as a caller crash: the level
// runs once more with fresh processes, and a second crash stops the ramp as the callers' limit.
// Each caller has a FakeMicrophone that speaks a speech WAV fixture from test/fixtures/audio whose
// words are scripted with playWav's `transcript`, so every answer is a knowledge-base answer the
// voice really speaks. Between questions a microphone sends nothing (BENCH_CAPACITY_IDLE_AUDIO=none,
// the default: frames flow while it speaks and for 1 s of silence after, so the emulator's VAD ends
// the utterance) or 10 ms frames of silence all the time (=silence, as an open browser microphone;
// each such listener costs the callers ~18 ms and the emulator ~3 ms of CPU per second).
// Levels ramp 1, 4, 8, 16, 24, 32, 40, … 96 sessions. At each level all sessions connect (in waves of
// 8 every 250 ms), then speak one question each (or, BENCH_CAPACITY_SPEAKERS=k, k of them spread
// evenly while the others listen), onsets staggered over STAGGER_MS (synchronized onsets would
// measure a burst, not concurrency), and the assistant's answer plays for ANSWER_PLAY_MS before the
// caller interrupts it (bounding the run), so audio flows both ways while later turns are answered.
// A level below 6 turns is repeated until it has 6. Measured: the median of the emulator's
// first_response_ms (end of speech -> first answer audio frame) at each level vs the 1-session
// baseline: BASELINE_RUNS fresh one-session runs (each level's turns are also the first turn of a
// fresh session), after one discarded warm-up run.
// The ramp stops at the first level whose median exceeds 2× the baseline (confirmed by running the
// level once more: the turns of both runs together), at a failed connection or turn, at MAX_SESSIONS
// (96), or when the ramp's time budget (BENCH_CAPACITY_BUDGET_MS, default 480 s; a minute less than
// run.mjs gives it) is spent: the whole benchmark then ends after the level in progress, the Flite
// cost rows (~10 s) and teardown, about 8-10 minutes on a quiet machine.
// Each level records the emulator's CPU (cores busy) and the callers' (all caller processes plus
// this coordinating one). A level is callers-bound when one caller process keeps CALLER_BOUND_SHARE
// of a core busy, machine-bound when callers + emulator keep that share of every core busy: a ramp
// stopping there reports the callers, not the emulator, as the limit (a lower bound, no verdict);
// so does one stopping at a level where other work on the machine kept >= 0.5 core busy (from /proc/stat),
// or whose baseline was taken so.
// Every level prints one line: sessions, turns, median first answer vs baseline, both CPU figures,
// bound, caller crashes, machine load. BENCH_CAPACITY_MAX lowers the top (e.g. 8 for a quick check
// that the bench works); BENCH_CAPACITY_CALLER_PROCS sets the caller processes (default 2).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmtMs, log, runBenchmark, sleep } from './lib/common.mjs';
import { CallerCrash, startCallerPool } from './lib/caller-pool.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { machineBusySeconds } from './lib/proc-cpu.mjs';
import { loadClient, loadEmulator } from './lib/kb.mjs';
import { FIXTURE_AUDIO } from './lib/node-caller.mjs';
import { median, round } from './lib/stats.mjs';

const LEVELS = [1, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96];
const MAX_SESSIONS = Number(process.env.BENCH_CAPACITY_MAX ?? 96);
// Issue 24: the emulator serves at least this many concurrent voice sessions on 2 cores.
const TARGET_SESSIONS = 64;
// The emulator's own cap must not be what stops the ramp.
const EMULATOR_MAX_SESSIONS = MAX_SESSIONS + 8;
// The callers are the limit when one caller process keeps this share of a core busy (its event
// loop's lag then delays the speech it sends and the answers it reads, whatever the emulator
// does), or when callers and emulator together keep this share of every core busy (the callers
// then take CPU the emulator would have had).
const CALLER_BOUND_SHARE = 0.9;
const CORES = os.availableParallelism?.() ?? os.cpus().length;
// Other work on the machine (all cores' busy time minus the emulator's and the callers') keeping this
// many cores busy at the stopping level took CPU the emulator needed: no verdict then.
const BUSY_OTHER_CORES = 0.5;
// Caller processes (bench/lib/caller-child.mjs): caller i of a level lives in process i % CALLER_PROCESSES.
const CALLER_PROCESSES = Number(process.env.BENCH_CAPACITY_CALLER_PROCS ?? 2);
if (!(Number.isInteger(CALLER_PROCESSES) && CALLER_PROCESSES >= 1 && CALLER_PROCESSES <= 8)) throw new Error(`BENCH_CAPACITY_CALLER_PROCS must be an integer 1..8, got ${process.env.BENCH_CAPACITY_CALLER_PROCS}`);
// What a microphone sends while its caller is not speaking: 'none' (default: frames only while it
// speaks, plus 1 s of silence after, so the emulator's VAD ends the utterance; a listener's track
// sends nothing, as a muted one) or 'silence' (10 ms frames all the time, as an open browser
// microphone: the emulator then also decodes and runs VAD on every listener's silence).
const IDLE_AUDIO = process.env.BENCH_CAPACITY_IDLE_AUDIO ?? 'none';
if (!['none', 'silence'].includes(IDLE_AUDIO)) throw new Error(`BENCH_CAPACITY_IDLE_AUDIO must be 'none' or 'silence', got ${IDLE_AUDIO}`);
// The lighter caller: BENCH_CAPACITY_SPEAKERS=k makes only k sessions of each level (spread evenly)
// ask a question; the others stay connected with their microphones streaming silence (sent as DTX,
// a few packets a second) and hear no answer. The callers' process then does far less (fewer answers
// to decode, fewer WAVs to play), so a callers-bound ramp can go on to find the emulator's limit.
const SPEAKERS = process.env.BENCH_CAPACITY_SPEAKERS ? Number(process.env.BENCH_CAPACITY_SPEAKERS) : Infinity;
if (!(SPEAKERS >= 1)) throw new Error(`BENCH_CAPACITY_SPEAKERS must be a number >= 1, got ${process.env.BENCH_CAPACITY_SPEAKERS}`);
// Ramp time: at most BENCH_CAPACITY_BUDGET_MS (default 480 s: both voices to 96 on a quiet machine),
// and a minute less than run.mjs gives this process (teardown, Flite cost, report).
const BUDGET_MS = Math.min(
  Number(process.env.BENCH_CAPACITY_BUDGET_MS ?? 480_000),
  process.env.BENCH_BUDGET_MS ? Number(process.env.BENCH_BUDGET_MS) - 60_000 : Infinity,
);
const VOICES = ['builtin', 'flite'];
// Flite voices whose cost per sentence is reported: the emulator's default first.
const FLITE_COST_VOICES = ['kal16', 'slt'];
// One-session first answers vary 15–50 ms on a quiet machine: 4 samples let two slow ones double the
// baseline (and so the threshold); 8 keep the median where most of them are.
const BASELINE_RUNS = 8;
const MIN_LEVEL_SAMPLES = 6;
const ANSWER_PLAY_MS = 2000;
const STAGGER_MS = 2000;
const TURN_TIMEOUT_MS = 30_000;
// Sessions of a level connect CONNECT_WAVE at a time, one wave every CONNECT_WAVE_MS (64 sessions: 2 s).
const CONNECT_WAVE = 8;
const CONNECT_WAVE_MS = 250;
// The spoken questions of test/fixtures/audio/README.md and their words.
const SPEECH_FIXTURES = [
  { name: 'boil-time.wav', transcript: 'How long does the kettle take to boil water?' },
  { name: 'descale.wav', transcript: 'How do I descale the kettle?' },
  { name: 'warranty.wav', transcript: 'How long is the warranty?' },
];

function loadFixtures() {
  const found = SPEECH_FIXTURES.filter((f) => fs.existsSync(path.join(FIXTURE_AUDIO, f.name)));
  if (found.length === 0) throw new Error(`none of ${SPEECH_FIXTURES.map((f) => f.name).join(', ')} in ${FIXTURE_AUDIO}`);
  return found; // the caller processes read the WAVs
}

/**
 * Flite's cost per sentence in this process's worker pool (warm), for the answers the run heard:
 * wall time in the worker (what a caller waits, machine load included) and CPU time (this process's
 * CPU over sequential syntheses divided by their count: nothing else runs here then, and it is
 * what the load does not change).
 */
async function fliteSentenceCost(emulatorModule, sentences, voice) {
  const { synthesizeFlite } = emulatorModule;
  for (const s of sentences) await synthesizeFlite(s, { voice }); // warm-up
  const ms = [];
  const audioMs = [];
  const cpu0 = process.cpuUsage();
  for (let round = 0; round < 5; round++) {
    for (const s of sentences) {
      const r = await synthesizeFlite(s, { voice });
      ms.push(r.synthesisMs);
      audioMs.push((r.samples.length / r.sampleRate) * 1000);
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return {
    medianMs: round(median(ms), 1), maxMs: round(Math.max(...ms), 1), cpuMsPerSentence: round((cpu.user + cpu.system) / 1000 / ms.length, 1),
    medianAudioMs: round(median(audioMs), 0), samples: ms.length,
  };
}

export async function main() {
  const { createApiClient } = await loadClient();
  const emulatorModule = await loadEmulator();
  const fixtures = loadFixtures();
  const started = performance.now();
  let fixtureCursor = 0; // rotates the questions across every turn of the run

  const sides = [];
  const pool = await startCallerPool(CALLER_PROCESSES);
  try {
    for (const voice of VOICES) {
      const emulator = await startEmulatorProcess({ agentBuildMs: 10, maxRealtimeSessions: EMULATOR_MAX_SESSIONS, realtime: { voice } });
      const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
      const aiId = emulator.fixtures.robotId;
      await api.realtime.warmup(aiId, { language: 'en' }); // warm robot: no turn pays the build
      sides.push({ voice, emulator, target: { url: emulator.url, apiKey: emulator.apiKey, aiId }, levels: [], base: NaN, capacity: 1, stopReason: `reached the bounded maximum of ${MAX_SESSIONS} sessions`, done: false, answers: new Set() });
    }

    /**
     * A ramp level: fresh sessions speaking once each, repeated until it has MIN_LEVEL_SAMPLES turns
     * (4 sessions: 2 rounds), so one stray slow turn on a busy machine cannot end a small level alone.
     */
    async function level(side, n) {
      const rounds = [];
      do rounds.push(await runRound(side, n));
      while (rounds.length * Math.min(n, SPEAKERS) < MIN_LEVEL_SAMPLES);
      return combine(n, rounds);
    }

    /** The CPU figures of rounds taken as one: the median of each. */
    const pooledCpu = (rounds) => ({
      emulatorCpuShare: round(median(rounds.map((r) => r.emulatorCpuShare)), 3), callerCpuShare: round(median(rounds.map((r) => r.callerCpuShare)), 3),
      busiestCallerShare: round(median(rounds.map((r) => r.busiestCallerShare)), 3),
      otherCpuShare: round(median(rounds.map((r) => r.otherCpuShare)), 3),
    });

    /** Rounds of one level as one: their turns pooled (the median over all of them). */
    function combine(n, rounds) {
      if (rounds.length === 1) return rounds[0];
      const samples = rounds.flatMap((r) => r.samples);
      return {
        sessions: n, rounds: rounds.length, connected: Math.min(...rounds.map((r) => r.connected)),
        failedConnects: rounds.reduce((a, r) => a + r.failedConnects, 0), samples, failures: rounds.flatMap((r) => r.failures),
        medianFirstResponseMs: median(samples),
        speakers: rounds.reduce((a, r) => a + r.speakers, 0),
        ...pooledCpu(rounds),
        callerCrashes: rounds.flatMap((r) => r.callerCrashes), loadAvg: Math.max(...rounds.map((r) => r.loadAvg)),
        wallS: round(rounds.reduce((a, r) => a + r.wallS, 0), 1),
        parts: rounds,
      };
    }

    async function runRound(side, n) {
      const cpu0 = side.emulator.cpuSeconds();
      const callers0 = pool.cpu();
      const machine0 = machineBusySeconds();
      const own0 = process.cpuUsage();
      const t0 = performance.now();
      let result;
      try {
        // Callers join in waves (CONNECT_WAVE every CONNECT_WAVE_MS), as users do, not in one
        // instant: 56 DTLS handshakes at once measure a connection storm, not how many calls the
        // emulator carries.
        const { connected, failed } = await pool.connect(side.target, n, {
          delayMs: (i) => Math.floor(i / CONNECT_WAVE) * CONNECT_WAVE_MS, idleAudio: IDLE_AUDIO, timeoutMs: 40_000 + Math.ceil(n / CONNECT_WAVE) * CONNECT_WAVE_MS,
        });
        const live = [...connected].sort((a, b) => a - b);
        // Every session speaks, or (lighter caller) SPEAKERS of them spread evenly over the level.
        const speakers = live.length <= SPEAKERS ? live : Array.from({ length: SPEAKERS }, (_, k) => live[Math.floor((k * live.length) / SPEAKERS)]);
        const results = await pool.speak(
          speakers.map((index, k) => ({ index, fixture: fixtures[fixtureCursor++ % fixtures.length], delayMs: Math.round((k * STAGGER_MS) / Math.max(1, speakers.length)) + 300 })),
          { answerPlayMs: ANSWER_PLAY_MS, turnTimeoutMs: TURN_TIMEOUT_MS },
        );
        const samples = results.filter((r) => !r.error).map((r) => r.firstResponseMs);
        for (const r of results) if (!r.error) side.answers.add(r.answer);
        const wallS = (performance.now() - t0) / 1000;
        const cpu1 = side.emulator.cpuSeconds();
        const machine1 = machineBusySeconds();
        const perProcess = pool.cpuSince(callers0);
        const own = process.cpuUsage(own0);
        const callerCpuShare = round((perProcess.reduce((a, x) => a + x, 0) + (own.user + own.system) / 1e6) / wallS, 3);
        const emulatorCpuShare = cpu0 !== null && cpu1 !== null ? round((cpu1 - cpu0) / wallS, 3) : null;
        result = {
          sessions: n, speakers: speakers.length, connected: live.length, failedConnects: failed.length, samples,
          failures: [...failed.map((f) => `connect: ${f.error}`), ...results.filter((r) => r.error).map((r) => r.error)],
          medianFirstResponseMs: median(samples),
          emulatorCpuShare,
          // Every caller process plus this one (which only coordinates them).
          callerCpuShare,
          // Everything else the machine ran meanwhile (other sessions' work): cores busy.
          otherCpuShare: machine0 !== null && machine1 !== null && emulatorCpuShare !== null
            ? round(Math.max(0, (machine1 - machine0) / wallS - emulatorCpuShare - callerCpuShare), 3) : null,
          busiestCallerShare: round(Math.max(0, ...perProcess) / wallS, 3),
          wallS: round(wallS, 1),
        };
      } finally {
        await pool.end();
        await sleep(500); // let the emulator tear the peers down before the next level
      }
      // A caller process that died (wrtc's native code) took its share of the round with it: the
      // round says so instead of counting those callers as the emulator's failed turns.
      result.callerCrashes = pool.takeCrashes().map((c) => new CallerCrash(c).message);
      result.loadAvg = round(os.loadavg()[0], 1);
      return result;
    }

    /**
     * Why a level's callers (not the emulator) may be its limit, or null: one caller process near a
     * whole core (its event loop lags), or callers and emulator together near every core.
     */
    const limitOf = (r) => (r.busiestCallerShare >= CALLER_BOUND_SHARE
      ? `callers-bound: one caller process kept ${r.busiestCallerShare} of a core busy`
      : r.callerCpuShare + (r.emulatorCpuShare ?? 0) >= CALLER_BOUND_SHARE * CORES
        ? `machine-bound: callers ${r.callerCpuShare} + emulator ${r.emulatorCpuShare} cores of ${CORES}`
        : null);

    /** One self-explaining line per level. */
    const describeLevel = (r, base) => [
      `${r.sessions} sessions (${r.connected} connected; ${r.speakers} turns${r.rounds ? ` over ${r.rounds} rounds` : ''})`,
      `median first answer ${fmtMs(r.medianFirstResponseMs, 0)} = ${(r.medianFirstResponseMs / base).toFixed(2)}× baseline ${fmtMs(base, 0)}${r.rerun ? ' (level run twice)' : ''}`,
      `${r.failures.length} failed`,
      `CPU cores: emulator ${r.emulatorCpuShare ?? 'n/a'}, callers ${r.callerCpuShare} (busiest of ${CALLER_PROCESSES} processes ${r.busiestCallerShare}), other work ${r.otherCpuShare ?? 'n/a'}${r.bound ? ` [${r.bound}]` : ''}`,
      `caller crashes ${r.callerCrashes.length}${r.earlierCallerCrashes ? ` (+${r.earlierCallerCrashes.length} in a first run: ${r.earlierCallerCrashes.join('; ')})` : ''}`,
      `load ${r.loadAvg}`, `${r.wallS} s`,
    ].join('; ');

    /** The two sides in ABAB order: A first at even steps, B first at odd ones. */
    const ordered = (step) => (step % 2 === 0 ? sides : [...sides].reverse());

    for (const side of sides) await runRound(side, 1); // warm-up: cold code paths (JIT, VAD init, Flite workers)
    const runs = new Map(sides.map((side) => [side, []]));
    for (let i = 0; i < BASELINE_RUNS; i++) for (const side of ordered(i)) runs.get(side).push(await runRound(side, 1));
    for (const side of sides) {
      const r = runs.get(side);
      const baseline = {
        ...r[0], samples: r.flatMap((x) => x.samples), failures: r.flatMap((x) => x.failures),
        failedConnects: r.reduce((a, x) => a + x.failedConnects, 0), wallS: round(r.reduce((a, x) => a + x.wallS, 0), 1),
        speakers: r.length, ...pooledCpu(r), callerCrashes: r.flatMap((x) => x.callerCrashes), loadAvg: Math.max(...r.map((x) => x.loadAvg)),
      };
      baseline.medianFirstResponseMs = median(baseline.samples);
      side.levels.push(baseline);
      side.base = baseline.medianFirstResponseMs;
      // A baseline taken while other work shared the machine is inflated, and every ratio with it: no verdict then.
      side.baseBusy = baseline.otherCpuShare >= BUSY_OTHER_CORES ? baseline.otherCpuShare : null;
      if (!Number.isFinite(side.base)) throw new Error(`no ${side.voice} baseline: ${[...baseline.callerCrashes, ...baseline.failures].join('; ')}`);
      log(`capacity [${side.voice}]: baseline, ${BASELINE_RUNS} one-session runs (first answers ${baseline.samples.join(', ')} ms): ${describeLevel(baseline, side.base)}`);
    }

    let step = 0;
    for (const n of LEVELS.filter((x) => x > 1 && x <= MAX_SESSIONS)) {
      for (const side of ordered(step++)) {
        if (side.done) continue;
        if (performance.now() - started > BUDGET_MS) {
          side.stopReason = `time budget (${BUDGET_MS / 1000} s) reached before ${n} sessions`;
          side.done = true;
          continue;
        }
        let r = await level(side, n);
        if (r.callerCrashes.length) {
          // A caller process died (wrtc's native code): its callers' turns say nothing about the
          // emulator. The level runs once more with fresh processes; a second crash ends the ramp.
          log(`capacity [${side.voice}]: ${n} sessions: ${r.callerCrashes.join('; ')}; running the level again`);
          const crashed = r.callerCrashes;
          r = await level(side, n);
          r.earlierCallerCrashes = crashed;
        }
        if (!r.callerCrashes.length && !(r.medianFirstResponseMs / side.base <= 2) && r.failedConnects === 0 && r.failures.length === 0) {
          // One slow level must not end the ramp (a median of a few turns, baselines of 15-30 ms: one
          // scheduling hiccup doubles it): the level runs again and the ramp stops only if the turns
          // of both runs together are still over 2x.
          log(`capacity [${side.voice}]: ${n} sessions: median ${fmtMs(r.medianFirstResponseMs, 0)} over 2× the baseline; running the level again`);
          r = combine(n, [...(r.parts ?? [r]), await runRound(side, n)]);
          r.rerun = true;
        }
        side.levels.push(r);
        const ratio = r.medianFirstResponseMs / side.base;
        r.bound = limitOf(r);
        const stop = r.callerCrashes.length
          ? `${n} sessions: a caller process crashed again (${r.callerCrashes.join('; ')})`
          : r.failedConnects || r.failures.length
            ? `${n} sessions: ${r.failedConnects} failed connection(s), ${r.failures.length} failed turn(s) (${r.failures.slice(0, 2).join('; ')})`
            : ratio <= 2 ? null : `${n} sessions: median first answer ${ratio.toFixed(2)}× the 1-session baseline`;
        log(`capacity [${side.voice}]: ${describeLevel(r, side.base)}${stop ? ` — STOP: ${stop}` : ''}`);
        if (stop) {
          side.stopReason = stop;
          if (r.callerCrashes.length || r.bound) {
            side.callerBound = true;
            side.stopReason += ` — the bench's callers, not the emulator, were the limit${r.bound ? ` (${r.bound})` : ''}`;
          } else if (r.otherCpuShare >= BUSY_OTHER_CORES) {
            // Other work on the machine took the CPU the emulator needed: no verdict on the emulator.
            side.machineBusy = true;
            side.stopReason += ` — the machine was busy (other work kept ${r.otherCpuShare} of its ${CORES} cores busy; load average ${r.loadAvg}): a lower bound, not the emulator's limit`;
          }
          side.done = true;
        } else {
          side.capacity = n;
        }
      }
      if (sides.every((side) => side.done)) break;
    }

    // Flite's cost per sentence, measured here (not in the emulators) on the sentences the run answered.
    const sentences = [...new Set([...sides.flatMap((s) => [...s.answers])].flatMap((a) => emulatorModule.speechSentences(a).map((x) => x.trim())))].filter(Boolean);
    // The emulator's default Flite voice (what the run used) and the smoother, costlier `slt`.
    const synthesis = {};
    for (const voice of FLITE_COST_VOICES) synthesis[voice] = await fliteSentenceCost(emulatorModule, sentences, voice);

    const [formant, flite] = sides;
    const shown = (side) => `${side.stopReason.startsWith('reached') ? '>= ' : ''}${side.capacity}`;
    /** The emulator's CPU (cores busy) at the last level it passed. */
    const cpuAtCapacity = (side) => side.levels.find((l) => l.sessions === side.capacity)?.emulatorCpuShare ?? null;
    const figure = (side) => ({
      label: `Concurrent sessions with audio both ways, first answer <= 2× the 1-session baseline — ${side.voice === 'flite' ? 'Flite voice' : 'formant voice'}`,
      value: `${shown(side)} (baseline ${fmtMs(side.base, 0)}${side.baseBusy !== null ? `, taken while other work kept ${side.baseBusy} cores busy: no verdict` : ''}; emulator CPU ${cpuAtCapacity(side) ?? 'n/a'} cores there; stopped: ${side.stopReason})`,
      target: `>= ${TARGET_SESSIONS}${side.voice === 'flite' ? ' and >= formant voice (same run)' : ''}`,
      // A ramp stopped by its own callers, its time budget or a lowered top (BENCH_CAPACITY_MAX) has not found the emulator's limit: no verdict below the target.
      met: side.baseBusy !== null ? null : side.capacity >= TARGET_SESSIONS
        ? side.voice !== 'flite' || side.capacity >= sides[0].capacity
        : side.callerBound || side.machineBusy || side.stopReason.startsWith('time budget') || MAX_SESSIONS < TARGET_SESSIONS ? null : false,
    });
    return {
      name: 'capacity',
      title: '6. Emulator capacity (concurrent sessions before first answer latency doubles)',
      ok: true,
      figures: [
        figure(formant),
        figure(flite),
        ...sides.map((side) => ({
          label: `Ramp — ${side.voice === 'flite' ? 'Flite' : 'formant'} voice: sessions (turns measured): median first answer (× baseline); CPU cores emulator / callers / other work`,
          value: side.levels.map((l) => `${l.sessions} (${l.speakers}): ${fmtMs(l.medianFirstResponseMs, 0)} (${(l.medianFirstResponseMs / side.base).toFixed(2)}×${l.rerun ? ', run twice' : ''}); ${l.emulatorCpuShare ?? 'n/a'} / ${l.callerCpuShare} / ${l.otherCpuShare ?? 'n/a'}${l.bound ? ` [${l.bound.split(':')[0]}]` : ''}${l.callerCrashes.length || l.earlierCallerCrashes ? ` [caller crash ${l.callerCrashes.length + (l.earlierCallerCrashes?.length ?? 0)}]` : ''}`).join(' | '),
        })),
        ...FLITE_COST_VOICES.map((voice) => ({
          label: `Flite synthesis per sentence (${voice} voice${voice === FLITE_COST_VOICES[0] ? ', the default' : ''}; warm worker, the run's answer sentences)`,
          value: `${synthesis[voice].cpuMsPerSentence} ms CPU; wall median ${synthesis[voice].medianMs} ms, max ${synthesis[voice].maxMs} ms (machine load included), for a median ${synthesis[voice].medianAudioMs} ms of speech (${synthesis[voice].samples} syntheses)`,
        })),
      ],
      details: {
        voices: Object.fromEntries(sides.map((side) => [side.voice, { capacity: side.capacity, callerBound: side.callerBound ?? false, machineBusy: side.machineBusy ?? false, baselineOtherCores: side.baseBusy, emulatorCpuAtCapacity: cpuAtCapacity(side), reachedMax: side.stopReason.startsWith('reached'), baselineMs: side.base, stopReason: side.stopReason, levels: side.levels }])),
        synthesis,
        config: { LEVELS, MAX_SESSIONS, BUDGET_MS, CONNECT_WAVE, CONNECT_WAVE_MS, SPEAKERS: SPEAKERS === Infinity ? 'all' : SPEAKERS, IDLE_AUDIO, CALLER_PROCESSES, CORES, TARGET_SESSIONS, CALLER_BOUND_SHARE, EMULATOR_MAX_SESSIONS, STAGGER_MS, BASELINE_RUNS, MIN_LEVEL_SAMPLES, ANSWER_PLAY_MS, voices: VOICES, agentBuildMs: 10, fliteWorkers: process.env.KB_VOICE_FLITE_WORKERS ?? 'default' },
      },
      notes: [
        `${SPEAKERS === Infinity ? 'every session of a level asks a question' : `${SPEAKERS} sessions of each level ask a question (spread evenly), the others listen`}; ${IDLE_AUDIO === 'none' ? 'microphones send audio only while their caller speaks (plus 1 s of silence after), so a listener sends no frames and the emulator runs no VAD on it' : 'every microphone streams 10 ms frames all the time (silence between questions), as an open browser microphone'}`,
        `one emulator process per voice (warm robot, agentBuildMs 10); callers (Node wrtc VoiceSessions with FakeMicrophones playing WAV fixtures with scripted transcripts) in ${CALLER_PROCESSES} caller process(es), caller i in process i mod ${CALLER_PROCESSES}; levels alternate between the voices (ABAB); sessions connect ${CONNECT_WAVE} at a time every ${CONNECT_WAVE_MS} ms; speech onsets staggered over ${STAGGER_MS} ms; each answer plays ${ANSWER_PLAY_MS} ms, then is interrupted; baseline: ${BASELINE_RUNS} fresh 1-session runs per voice`,
        'a level whose median first answer is over 2x the baseline runs once more, and the ramp stops only if the turns of both runs together are still over 2x ("run twice"); a level during which a caller process died runs once more with fresh processes, and a second crash stops the ramp as the callers\' limit',
        `CPU cores are CPU seconds per wall second over a level: the emulator's process, and the callers' (every caller process plus the coordinating one). callers-bound: one caller process kept >= ${CALLER_BOUND_SHARE} of a core busy; machine-bound: callers + emulator kept >= ${CALLER_BOUND_SHARE} x ${CORES} cores busy. At such a level a slower first answer may be the callers' doing, and the figure is a lower bound for the emulator. Other work: the machine's busy cores (/proc/stat) minus both; a ramp stopping where it is >= ${BUSY_OTHER_CORES} core gets no verdict either`,
        `ramp budget ${BUDGET_MS / 1000} s (BENCH_CAPACITY_BUDGET_MS); whole run ${round((performance.now() - started) / 1000, 0)} s; machine load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end (other work on the machine shares the cores)`,
      ],
    };
  } finally {
    await pool.close();
    await Promise.allSettled(sides.map((side) => side.emulator.stop()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('capacity', '6. Emulator capacity', main);
}
