#!/usr/bin/env node
// Benchmark 5: a long call. TURNS text turns through the data channel on ONE VoiceSession
// (Node, @roamhq/wrtc); heap growth per turn and event-loop delay must stay flat.
//
// Two processes: this one runs the emulator (agentBuildMs 10, built-in voice); the client runs
// in a child started with --expose-gc, so the heap measured is the library's alone (the
// emulator's store grows by design with every recorded turn). Each turn: sendText, then
// interrupt() as soon as the assistant's audio starts (the answer's full speech would make each
// turn seconds long), then wait for its turn.completed. Every SAMPLE_EVERY turns the child runs
// gc() and records heapUsed; every 100 turns it records the event-loop delay
// (perf_hooks.monitorEventLoopDelay, 10 ms resolution) of that window. Reported: the slope of a
// linear regression of heapUsed vs turn index (bytes/turn) and of the per-window mean delay vs
// window index (ms per 100 turns). VoiceSession keeps every Turn in `session.turns` by design,
// so some growth per turn is expected: it is set beside the size of one Turn record.
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { benchDir, fmtMs, log, runBenchmark, runChild } from './lib/common.mjs';
import { loadClient, loadEmulator, loadWrtc } from './lib/kb.mjs';
import { textTurn } from './lib/node-caller.mjs';
import { linearRegression, mean, percentile, round } from './lib/stats.mjs';

const TURNS = Number(process.env.BENCH_LONG_TURNS ?? 2000);
const BUDGET_MS = Number(process.env.BENCH_LONG_BUDGET_MS ?? 240_000);
const SAMPLE_EVERY = 10;
const WINDOW = 100;
// monitorEventLoopDelay's samples include its own timer interval: subtract it to get the delay.
const ELD_RESOLUTION_MS = 10;
const QUESTIONS = [
  'How long does the kettle take to boil water?',
  'How long is the warranty?',
  'How do I descale the kettle?',
  'What is the capacity of the kettle?',
];
// "Flat" thresholds: heap growth per turn at most a few retained Turn records' worth (below), and
// the event-loop delay's fitted rise over the whole call under 1 ms.
const ELD_RISE_LIMIT_MS = 1;

async function client({ url, apiKey, robotId }) {
  const { VoiceSession, createApiClient } = await loadClient();
  const { FakeMicrophone } = await loadEmulator();
  const wrtc = await loadWrtc();
  const api = createApiClient({ baseUrl: url, apiKey });
  const mic = new FakeMicrophone();
  const session = new VoiceSession({ aiId: robotId, api, wrtc, microphone: mic.open, language: 'en' });
  await session.start();
  const heap = []; // [turnIndex, heapUsed]
  const windows = []; // { index, meanMs, p99Ms, maxMs, turnMs }
  const turnMs = [];
  const errors = [];
  session.on('error', (e) => errors.push(String(e?.code ?? e)));
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  const started = performance.now();
  let done = 0;
  let windowStart = performance.now();
  gc();
  heap.push([0, process.memoryUsage().heapUsed]);
  eld.enable();
  for (let i = 0; i < TURNS; i++) {
    if (performance.now() - started > BUDGET_MS) break;
    const t = performance.now();
    await textTurn(session, QUESTIONS[i % QUESTIONS.length], { interrupt: true, ms: 30000 });
    turnMs.push(performance.now() - t);
    done = i + 1;
    if (done % SAMPLE_EVERY === 0) {
      gc();
      heap.push([done, process.memoryUsage().heapUsed]);
    }
    if (done % WINDOW === 0) {
      windows.push({ index: done / WINDOW, meanMs: eld.mean / 1e6 - ELD_RESOLUTION_MS, p99Ms: eld.percentile(99) / 1e6 - ELD_RESOLUTION_MS, maxMs: eld.max / 1e6 - ELD_RESOLUTION_MS, turnMs: (performance.now() - windowStart) / WINDOW });
      eld.reset();
      windowStart = performance.now();
      process.stderr.write(`[bench] long-call: ${done}/${TURNS} turns, heap ${(heap.at(-1)[1] / 2 ** 20).toFixed(1)} MiB, ${windows.at(-1).turnMs.toFixed(1)} ms/turn\n`);
    }
  }
  eld.disable();
  const turns = session.turns;
  const avgTurnJson = turns.length ? JSON.stringify(turns).length / turns.length : 0;
  const state = session.state.status;
  await session.end({ mode: 'immediate' }).catch(() => {});
  mic.close();
  return { done, heap, windows, turnMs, errors, avgTurnJson, keptTurns: turns.length, finalState: state, elapsedMs: performance.now() - started };
}

export async function main() {
  const { startEmulator } = await loadEmulator();
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: 10, realtime: { voice: 'builtin' } });
  try {
    const args = JSON.stringify({ url: emulator.url, apiKey: emulator.apiKey, robotId: emulator.fixtures.robotId });
    const r = await runChild(process.execPath, ['--expose-gc', path.join(benchDir, 'long-call.mjs'), '--client', args], {
      timeoutMs: BUDGET_MS + 60_000,
      inheritStderr: true,
    });
    let c;
    try {
      c = JSON.parse(r.stdout.trim().split('\n').pop());
    } catch {
      throw new Error(`client process failed (${r.timedOut ? 'timed out' : `exit ${r.code} ${r.signal ?? ''}`}) before reporting: ${r.stdout.slice(-300)}`);
    }
    const heapFit = linearRegression(c.heap.map((h) => h[0]), c.heap.map((h) => h[1]));
    const eldFit = linearRegression(c.windows.map((w) => w.index), c.windows.map((w) => w.meanMs));
    const eldP99Fit = linearRegression(c.windows.map((w) => w.index), c.windows.map((w) => w.p99Ms));
    // A Turn's strings are UTF-16 in V8 (2 bytes per char) plus object overhead: about
    // 2 × its JSON length is what keeping it costs. "Flat" allows 3 such records per turn.
    const turnRecordBytes = 2 * c.avgTurnJson;
    const heapLimit = Math.max(3 * turnRecordBytes, 1024);
    const eldRise = eldFit.slope * Math.max(0, c.windows.length - 1);
    const completed = c.done >= TURNS;
    const notes = [
      `${c.done} turns in ${(c.elapsedMs / 1000).toFixed(0)} s (${fmtMs(mean(c.turnMs))}/turn, p99 ${fmtMs(percentile(c.turnMs, 99))}); each answer interrupted as soon as its audio started; agentBuildMs 10, built-in voice`,
      `heap ${(c.heap[0][1] / 2 ** 20).toFixed(1)} -> ${(c.heap.at(-1)[1] / 2 ** 20).toFixed(1)} MiB after gc (r² ${heapFit.r2.toFixed(2)}); session.turns keeps ${c.keptTurns} Turn records of ~${turnRecordBytes.toFixed(0)} B each (2 × ${c.avgTurnJson.toFixed(0)} B JSON)`,
      `event-loop delay (beyond the ${ELD_RESOLUTION_MS} ms sampling interval) per 100 turns: mean ${c.windows.map((w) => w.meanMs.toFixed(2)).join(', ')} ms`,
    ];
    if (!completed) notes.push(`stopped at ${c.done} of ${TURNS} turns: time budget ${BUDGET_MS / 1000} s reached`);
    if (c.errors.length) notes.push(`session errors: ${c.errors.slice(0, 5).join(', ')}${c.errors.length > 5 ? '…' : ''}`);
    return {
      name: 'long-call',
      title: `5. Long call (${c.done} text turns, one session)`,
      ok: c.windows.length >= 2,
      figures: [
        { label: 'Heap growth per turn (slope of heapUsed after gc)', value: `${heapFit.slope.toFixed(0)} B/turn (Turn record ~${turnRecordBytes.toFixed(0)} B kept by design)`, target: `flat (<= ${heapLimit.toFixed(0)} B/turn)`, met: completed && heapFit.slope <= heapLimit },
        { label: 'Event-loop delay slope (mean per 100-turn window)', value: `${eldFit.slope >= 0 ? '+' : ''}${eldFit.slope.toFixed(3)} ms per 100 turns (fitted rise ${eldRise.toFixed(2)} ms; p99 slope ${eldP99Fit.slope.toFixed(3)})`, target: `flat (rise < ${ELD_RISE_LIMIT_MS} ms)`, met: completed && eldRise < ELD_RISE_LIMIT_MS },
      ],
      details: {
        turns: c.done, target: TURNS, heapSlopeBytesPerTurn: round(heapFit.slope, 1), heapR2: round(heapFit.r2, 3), eldSlopeMsPerWindow: round(eldFit.slope, 4),
        eldP99SlopeMsPerWindow: round(eldP99Fit.slope, 4), turnRecordBytes: round(turnRecordBytes, 0), heap: c.heap, windows: c.windows,
        finalState: c.finalState, errors: c.errors.slice(0, 20),
      },
      notes,
    };
  } finally {
    await emulator.close().catch(() => {});
  }
}

if (process.argv[2] === '--client') {
  if (typeof gc !== 'function') throw new Error('run the client with --expose-gc');
  const result = await client(JSON.parse(process.argv[3]));
  process.stdout.write(JSON.stringify(result) + '\n');
  setTimeout(() => process.exit(0), 100).unref();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('long-call', '5. Long call', main);
}
