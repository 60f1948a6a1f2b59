#!/usr/bin/env node
// `npm run bench`: builds the package if needed, runs every benchmark as a separate child process,
// one after another, each with a time budget; collects their JSON results, prints a table, and
// writes bench/results.json (with the machine it ran on) and bench/RESULTS.md (markdown for the
// README). Not part of `npm test`.
//
//   node bench/run.mjs                  all benchmarks
//   node bench/run.mjs relay warmup     only those whose name contains one of the words
//
// Each benchmark can also run alone: `node bench/<name>.mjs`.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchDir, distDir, ensureBuilt, killActiveChildren, log, machineInfo, runChild } from './lib/common.mjs';

/** Order and time budget of each benchmark (ms); the whole run is bounded by TOTAL_BUDGET_MS. */
const BENCHMARKS = [
  { file: 'time-to-connected.mjs', budgetMs: 120_000 },
  { file: 'ice-paths.mjs', budgetMs: 120_000 },
  { file: 'reconnect-jitter.mjs', budgetMs: 150_000 },
  { file: 'network-profiles.mjs', budgetMs: 240_000 },
  // 5 profiles × 2 calls with a question said at the click (kb-voice-qa's spec): ~4 min.
  { file: 'first-words.mjs', budgetMs: 300_000 },
  { file: 'warmup.mjs', budgetMs: 90_000 },
  { file: 'perceived-latency.mjs', budgetMs: 90_000 },
  // 8 typed then 8 spoken questions (an 11 s microphone loop each) in one widget call: ~2.2 min.
  { file: 'sources-latency.mjs', budgetMs: 240_000 },
  // five targets (direct, bare, relay, users, express), 8 s warm-up each, then five paired rounds.
  // 11 targets x 5 rounds: 452-464 s alone on a quiet machine (2026-11-29), too close to the 480 s it had.
  // + the user rows side by side (three more processes, five more warm-ups, 3 x 28 slices): 618 s alone (2026-11-29).
  { file: 'relay-overhead.mjs', budgetMs: 780_000 },
  { file: 'history.mjs', budgetMs: 60_000 },
  { file: 'report-history.mjs', budgetMs: 90_000 },
  { file: 'bundle-size.mjs', budgetMs: 150_000 },
  { file: 'otel-bundle.mjs', budgetMs: 30_000 },
  { file: 'install-footprint.mjs', budgetMs: 120_000 },
  { file: 'noise-gate.mjs', budgetMs: 120_000 },
  { file: 'long-call.mjs', budgetMs: 240_000 + 60_000 },
  // 9 noise fixtures × 3 answers (~4 s each) and 6 spoken barge-ins: ~2.5 min.
  { file: 'noise-barge-in.mjs', budgetMs: 240_000 },
  // kb-voice-qa load: Node callers ramp 1 → 40, browsers 1 → 8 (docs/qa.md "Load tests").
  { file: 'qa-load.mjs', budgetMs: 300_000 },
  // The capacity ramp to 96 sessions takes ~480 s on a 2-core machine (emulator/README.md "Capacity").
  // With 8 speakers a level, the configuration the capacity target is measured in (emulator/README.md),
  // unless BENCH_CAPACITY_SPEAKERS says otherwise.
  { file: 'capacity.mjs', budgetMs: 480_000 + 60_000, env: { BENCH_CAPACITY_SPEAKERS: process.env.BENCH_CAPACITY_SPEAKERS ?? '8' } },
];
// 18 min: the benchmarks before capacity take ~8.5 min on a quiet 2-core machine (2026-11-25), the
// capacity ramp up to 9 min (it used to get 300 s, too few for its ramp to 96 sessions, so a full run never
// showed the capacity it measures alone).
// + 4 min for noise-barge-in (2026-11-26).
// + 5 min for qa-load (2026-11-27).
// + 80 s for relay-overhead's two rows as users run it (2026-11-27), + 40 s for the Express row's floor (a bare
// proxy in Express, 2026-11-27).
// + 5 min for first-words (2026-11-28).
// + 2.5 min for sources-latency (2026-11-28).
// + 2 min for relay-overhead, which took 452-464 s of its 480 s alone (2026-11-29).
// + 3 min for relay-overhead's user rows side by side (2026-11-29).
const TOTAL_BUDGET_MS = 2_730_000;

async function main() {
  const started = performance.now();
  const filters = process.argv.slice(2);
  const selected = BENCHMARKS.filter((b) => filters.length === 0 || filters.some((f) => b.file.includes(f)));
  if (selected.length === 0) throw new Error(`no benchmark matches ${filters.join(', ')}`);

  ensureBuilt();
  // A private copy of dist/ for the whole run: `npm test` / `npm run build` elsewhere on the
  // machine recreate dist/ from scratch and must not pull it from under a running benchmark.
  const snapshot = path.join(benchDir, '.cache', `dist-run-${process.pid}`);
  rmSync(snapshot, { recursive: true, force: true });
  cpSync(distDir, snapshot, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kbv-bench-'));
  // Benchmarks run in process groups of their own (so a budget ends everything they started);
  // Ctrl-C must reach them too.
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      killActiveChildren('SIGTERM');
      rmSync(snapshot, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    });
  }

  const machine = machineInfo();
  const results = [];
  try {
    for (const b of selected) {
      const name = b.file.replace(/\.mjs$/, '');
      const elapsed = performance.now() - started;
      const remaining = TOTAL_BUDGET_MS - elapsed;
      if (remaining < 20_000) {
        results.push({ name, title: name, ok: false, figures: [], error: `skipped: total time budget (${TOTAL_BUDGET_MS / 1000} s) used up` });
        continue;
      }
      const budget = Math.min(b.budgetMs, remaining);
      const out = path.join(tmp, `${name}.json`);
      log(`running ${name} (budget ${(budget / 1000).toFixed(0)} s)…`);
      const r = await runChild(process.execPath, [path.join(benchDir, b.file)], {
        timeoutMs: budget,
        env: { ...b.env, BENCH_RESULT_FILE: out, BENCH_DIST: snapshot, BENCH_NO_BUILD: '1', BENCH_BUDGET_MS: String(Math.round(budget)) },
        inheritStderr: true,
        detached: true,
        onStdout: (text) => process.stdout.write(text),
      });
      let result;
      if (existsSync(out)) {
        result = JSON.parse(readFileSync(out, 'utf8'));
      } else {
        result = {
          name, title: name, ok: false, figures: [],
          error: r.timedOut ? `timed out after ${(budget / 1000).toFixed(0)} s` : `exited ${r.code ?? r.signal} without a result`,
        };
      }
      result.wallMs = Math.round(r.ms);
      if (r.timedOut && result.ok) result.notes = [...(result.notes ?? []), 'the process was stopped at its time budget after reporting'];
      results.push(result);
    }
  } finally {
    rmSync(snapshot, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }

  const totalMs = Math.round(performance.now() - started);
  const chromium = results.find((r) => r.name === 'time-to-connected')?.details?.browser;
  if (chromium) machine.chromiumUsedByPlaywright = chromium;
  const missed = [];
  for (const r of results) {
    if (!r.ok) missed.push(`${r.title}: did not complete (${r.error ?? 'see notes'})`);
    for (const f of r.figures) if (f.met === false) missed.push(`${r.title} — ${f.label}: ${f.value} (target ${f.target})`);
  }
  const report = { machine, totalMs, withinBudget: totalMs < TOTAL_BUDGET_MS, benchmarks: results, missedTargets: missed };
  const partial = selected.length !== BENCHMARKS.length;
  const jsonFile = path.join(benchDir, partial ? 'results.partial.json' : 'results.json');
  writeFileSync(jsonFile, JSON.stringify(report, null, 2) + '\n');
  const md = markdown(report);
  if (!partial) writeFileSync(path.join(benchDir, 'RESULTS.md'), md);
  printTable(report);
  console.log(`\nwrote ${path.relative(process.cwd(), jsonFile)}${partial ? ' (partial run: RESULTS.md untouched)' : ' and bench/RESULTS.md'}`);
}

function verdict(f) {
  return f.met === true ? 'met' : f.met === false ? 'MISSED' : '';
}

function printTable(report) {
  const rows = [];
  for (const r of report.benchmarks) {
    if (!r.ok && r.figures.length === 0) rows.push([r.title, 'FAILED', r.error ?? '', '', '']);
    for (const f of r.figures) rows.push([r.title, f.label, f.value, f.target ?? '', verdict(f)]);
  }
  const widths = [0, 1, 3, 4].map((i) => Math.min(60, Math.max(...rows.map((row) => String(row[i]).length), 6)));
  const cut = (s, w) => (s.length > w ? s.slice(0, w - 1) + '…' : s.padEnd(w));
  console.log('\n' + '='.repeat(100));
  console.log(`kb-voice benchmarks — ${report.machine.cpuModel}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}, ${report.machine.chromium ?? 'no chromium'}`);
  console.log('='.repeat(100));
  let last = '';
  for (const [bench, label, value, target, v] of rows) {
    if (bench !== last) {
      console.log(`\n${bench}`);
      last = bench;
    }
    console.log(`  ${cut(label, widths[1])}  ${v ? `[${v}${target ? ' ' + target : ''}]` : ''}\n      ${value}`);
  }
  console.log(`\nTotal: ${(report.totalMs / 1000).toFixed(0)} s (${report.withinBudget ? 'within' : 'OVER'} the ${TOTAL_BUDGET_MS / 60_000}-minute budget)`);
  if (report.missedTargets.length) {
    console.log('\nTargets missed:');
    for (const m of report.missedTargets) console.log(`  - ${m}`);
  } else {
    console.log('\nAll targets met.');
  }
}

function markdown(report) {
  const m = report.machine;
  const esc = (s) => String(s).replace(/\|/g, '\\|');
  const lines = [
    '# Benchmark results',
    '',
    `Measured by \`npm run bench\` on ${m.date.slice(0, 10)}: ${esc(m.cpuModel)}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, ${m.chromium ?? 'no Chromium'}; commit ${m.commit ?? 'n/a'}; load average at start ${m.loadAverageAtStart.join(' / ')}. Whole run: ${(report.totalMs / 1000).toFixed(0)} s. Every figure is a ratio or a side-by-side comparison taken in the same run (these machines are noisy).`,
    '',
    '| Benchmark | Figure | Result | Target | |',
    '|---|---|---|---|---|',
  ];
  for (const r of report.benchmarks) {
    if (!r.ok && r.figures.length === 0) lines.push(`| ${esc(r.title)} | — | not completed: ${esc(r.error ?? '')} | | |`);
    for (const f of r.figures) lines.push(`| ${esc(r.title)} | ${esc(f.label)} | ${esc(f.value)} | ${esc(f.target ?? '')} | ${verdict(f)} |`);
  }
  lines.push('');
  if (report.missedTargets.length) {
    lines.push('**Targets missed:**', '');
    for (const x of report.missedTargets) lines.push(`- ${x}`);
  } else {
    lines.push('All targets met.');
  }
  lines.push('', '## Notes', '');
  for (const r of report.benchmarks) for (const n of r.notes ?? []) lines.push(`- ${esc(r.title)}: ${n}`);
  lines.push('', 'Raw data: `bench/results.json`.', '');
  return lines.join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
