#!/usr/bin/env node
// Benchmark: calls per machine for kb-voice-qa load tests (docs/qa.md "Load tests"). How many
// concurrent calls one machine generates before the first answer's median doubles against the
// one-call baseline, with Node callers (kb-voice-qa/artillery nodeCall: VoiceSession over wrtc in a
// caller process) and with browser callers (browserCall: one Chromium page each), and the
// generator's CPU per call. The scenario functions run as Artillery runs them (a VU context and an
// event emitter), without Artillery itself: what is measured is the callers, not Artillery's engine.
//
// The service: an emulator in a process of its own (warm robot, agentBuildMs 10) behind a relay in
// this process. Each call speaks one question (Flite, scripted transcript) and waits for its
// finished answer. Levels: Node 1 (x3, the baseline), 4, 8, 16, 24, 32, 40 ... up to
// BENCH_QA_LOAD_MAX (default 40); browsers 1 (x2), 2, 4, 6, 8 up to BENCH_QA_LOAD_BROWSER_MAX
// (default 8; 0 skips them). A ramp stops at the first level whose median first response is over
// 2x the baseline, or with a failed call. The machine's other work is reported (load average):
// on a shared machine the figures are lower bounds.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromiumPath, log, root, runBenchmark } from './lib/common.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { loadRelay } from './lib/kb.mjs';
import { median, round } from './lib/stats.mjs';

const NODE_MAX = Number(process.env.BENCH_QA_LOAD_MAX ?? 40);
const BROWSER_MAX = Number(process.env.BENCH_QA_LOAD_BROWSER_MAX ?? 8);
const NODE_LEVELS = [4, 8, 16, 24, 32, 40, 48, 56, 64].filter((n) => n <= NODE_MAX);
const BROWSER_LEVELS = [2, 4, 6, 8, 12, 16].filter((n) => n <= BROWSER_MAX);
const CORES = os.availableParallelism?.() ?? os.cpus().length;

const { nodeCall, browserCall } = await import(pathToFileURL(path.join(root, 'qa', 'dist', 'load', 'index.js')).href);

async function warranty(call) {
  await call.say('How long is the warranty?');
  if (call.expectAnswer) await call.expectAnswer(/two-year/i, { within: 30_000 });
  else {
    const turn = await call.nextTurn({ timeout: 30_000 });
    if (!/two-year/i.test(turn.answer)) throw new Error(`unexpected answer: ${turn.answer}`);
  }
}

/** Runs `n` calls at once; resolves the level's figures from what they emitted. */
async function level(kind, n, vars, open) {
  const samples = [];
  const events = { emit: (k, name, value) => samples.push({ name, value }) };
  const t0 = performance.now();
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => open(i, events)));
  const wallS = (performance.now() - t0) / 1000;
  const of = (name) => samples.filter((s) => s.name === name).map((s) => s.value);
  const cpuPct = of('voice.generator_cpu_pct');
  const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.message ?? r.reason).split('\n')[0]);
  const firsts = of('voice.first_response_ms');
  const meanCpu = cpuPct.length ? cpuPct.reduce((a, b) => a + b, 0) / cpuPct.length : NaN;
  return {
    kind, calls: n, failed: failures.length, failures: failures.slice(0, 3),
    medianFirstResponseMs: round(median(firsts), 1), medianConnectMs: round(median(of('voice.connect_ms')), 0),
    generatorCpuPctMean: round(meanCpu, 1), generatorCpuPctMax: cpuPct.length ? Math.max(...cpuPct) : null,
    machineCpuPctMax: of('voice.machine_cpu_pct').length ? Math.max(...of('voice.machine_cpu_pct')) : null,
    // The generator's CPU seconds per call: its mean share of the machine over the level's wall time.
    cpuSecondsPerCall: round(((meanCpu / 100) * CORES * wallS) / n, 2), wallS: round(wallS, 1), loadAvg: round(os.loadavg()[0], 1),
  };
}

async function ramp(kind, levels, baselineRuns, run) {
  const base = [];
  for (let i = 0; i < baselineRuns; i++) base.push(await run(1));
  const baseline = median(base.map((b) => b.medianFirstResponseMs));
  const rows = [...base];
  let capacity = 1;
  let stop = `reached the bounded maximum of ${levels.at(-1) ?? 1}`;
  for (const n of levels) {
    const row = await run(n);
    rows.push(row);
    log(`${kind} ${n} calls: median first response ${row.medianFirstResponseMs} ms (baseline ${baseline}), generator CPU mean ${row.generatorCpuPctMean} % max ${row.generatorCpuPctMax} %, machine max ${row.machineCpuPctMax} %, ${row.failed} failed, load ${row.loadAvg}`);
    if (row.failed > 0) { stop = `${row.failed} failed call(s) at ${n}: ${row.failures.join(' | ')}`; break; }
    if (row.medianFirstResponseMs > 2 * baseline) { stop = `median first response over 2x the baseline at ${n}`; break; }
    capacity = n;
  }
  return { kind, baselineMs: baseline, capacity, stop, rows };
}

export async function main() {
  const emulator = await startEmulatorProcess({ agentBuildMs: 10, maxRealtimeSessions: Math.max(NODE_MAX, BROWSER_MAX) + 8 });
  const { createRelay, serveRelay } = await loadRelay();
  const relay = await serveRelay(createRelay({ upstream: emulator.url, apiKey: emulator.apiKey, prefix: '/api/voice', authorize: async () => ({ role: 'admin', userIdentifier: 'bench' }), robots: '*' }), { host: '127.0.0.1', port: 0 });
  const vars = (i) => ({ target: `${relay.url.replace(/\/+$/, '')}/api/voice`, emulatorUrl: emulator.url, $uuid: `bench-${i}-${Math.random().toString(36).slice(2)}`, userPrefix: 'bench' });
  const load0 = os.loadavg()[0];
  const sides = [];
  try {
    const nodeScenario = nodeCall(warranty);
    sides.push(await ramp('node', NODE_LEVELS, 3, (n) => level('node', n, vars, (i, events) => nodeScenario({ vars: vars(i) }, events))));
    if (BROWSER_MAX > 0) {
      const { chromium } = await import('@playwright/test');
      const executablePath = chromiumPath();
      const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: ['--no-sandbox'] });
      try {
        const browserScenario = browserCall(warranty);
        sides.push(await ramp('browser', BROWSER_LEVELS, 2, (n) => level('browser', n, vars, async (i, events) => {
          const context = await browser.newContext();
          try {
            await browserScenario(await context.newPage(), { vars: vars(i) }, events);
          } finally {
            await context.close();
          }
        })));
      } finally {
        await browser.close();
      }
    }
  } finally {
    await relay.close();
    await emulator.stop();
  }
  const figures = sides.flatMap((s) => {
    const top = s.rows.filter((r) => r.calls === s.capacity).at(-1);
    return [
      { label: `${s.kind} callers per machine (first answer within 2x the 1-call baseline of ${s.baselineMs} ms)`, value: `${s.capacity} (${s.stop})` },
      { label: `${s.kind} generator CPU per call at ${s.capacity} calls`, value: `${top?.cpuSecondsPerCall ?? 'n/a'} CPU-s per call (generator mean ${top?.generatorCpuPctMean ?? 'n/a'} % of ${CORES} cores, machine max ${top?.machineCpuPctMax ?? 'n/a'} %)` },
    ];
  });
  return {
    name: 'qa-load', title: 'kb-voice-qa load: calls per machine', ok: true, figures,
    details: { sides, cores: CORES },
    notes: [
      `the emulator runs on the same machine (its CPU is in the machine's figure, not the generator's); each call speaks one question and waits for its whole answer; the generator's figure is this process and every process under it (caller processes, Chromium)`,
      `load average ${round(load0, 1)} at the start, ${round(os.loadavg()[0], 1)} at the end on ${CORES} cores: on a machine shared with other work the capacities are lower bounds`,
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('qa-load', 'kb-voice-qa load: calls per machine', main);
}
