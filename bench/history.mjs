#!/usr/bin/env node
// Benchmark: reports and lists against a robot with a long history. An emulator in a process of its
// own gets HISTORY_SESSIONS past sessions (3 turns each) through POST /_emulator/history; this
// process then times, over HTTP on loopback (request sent -> whole body read), the cost and usage
// endpoints:
//   E13 (usage) for one call's window (start_time = end_time = that session's created_at), and for
//   the whole list; E12 (cost per session) and E11 (cost summary) likewise.
// Each figure is the median of REPS requests after WARMUP discarded ones, alternating endpoints so
// drift hits all alike; the emulator's CPU per request is read from /proc. Targets (issue 24): with
// 10,000 sessions, E13's one-call window <= 20 ms and its whole list <= 300 ms.
import { fmtMs, log, runBenchmark } from './lib/common.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { control } from './lib/kb.mjs';
import { median, percentile, round } from './lib/stats.mjs';

const HISTORY_SESSIONS = Number(process.env.BENCH_HISTORY_SESSIONS ?? 10_000);
const REPS = Number(process.env.BENCH_HISTORY_REPS ?? 15);
const WARMUP = 3;
const TARGET_WINDOW_MS = 20;
const TARGET_LIST_MS = 300;

export async function main() {
  const emulator = await startEmulatorProcess({ agentBuildMs: 10 });
  try {
    const ctl = control(emulator.url);
    const aiId = emulator.fixtures.robotId;
    const seedStart = performance.now();
    const { sessions } = await ctl.history(HISTORY_SESSIONS);
    const seedMs = performance.now() - seedStart;
    log(`history: ${sessions} sessions on the robot (seeded in ${seedMs.toFixed(0)} ms)`);

    const get = async (path, query = '') => {
      const t0 = performance.now();
      const res = await fetch(`${emulator.url}${path}${query ? `?${query}` : ''}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
      const body = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`GET ${path}?${query} -> ${res.status} ${body.slice(0, 200)}`);
      return { ms, bytes: body.length, json: JSON.parse(body) };
    };
    const all = await get(`/v1/robots/${aiId}/realtime-usage`);
    if (all.json.session_count !== sessions) throw new Error(`E13 lists ${all.json.session_count} sessions, the robot has ${sessions}`);
    // A call from the middle of the history: its own created_at is both ends of the window.
    const one = all.json.sessions[Math.floor(all.json.sessions.length / 2)];
    const oneWindow = new URLSearchParams({ start_time: one.created_at, end_time: one.created_at }).toString();

    const cases = [
      { key: 'e13Window', label: 'E13 usage, one call\'s window', path: `/v1/robots/${aiId}/realtime-usage`, query: oneWindow, expect: 1, target: TARGET_WINDOW_MS },
      { key: 'e13All', label: `E13 usage, whole list (${sessions} sessions)`, path: `/v1/robots/${aiId}/realtime-usage`, query: '', expect: sessions, target: TARGET_LIST_MS },
      { key: 'e12Window', label: 'E12 cost per session, one call\'s window', path: `/v1/robots/${aiId}/realtime-cost/sessions`, query: oneWindow, expect: 1 },
      { key: 'e12All', label: `E12 cost per session, whole list (${sessions} sessions)`, path: `/v1/robots/${aiId}/realtime-cost/sessions`, query: '', expect: sessions },
      { key: 'e11Window', label: 'E11 cost summary, one call\'s window', path: `/v1/robots/${aiId}/realtime-cost`, query: oneWindow, expect: 1 },
      { key: 'e11All', label: `E11 cost summary, whole history (${sessions} sessions)`, path: `/v1/robots/${aiId}/realtime-cost`, query: '', expect: sessions },
    ];
    const samples = Object.fromEntries(cases.map((c) => [c.key, { ms: [], cpuMs: [], bytes: 0 }]));
    for (let rep = 0; rep < WARMUP + REPS; rep++) {
      for (const c of rep % 2 === 0 ? cases : [...cases].reverse()) {
        const cpu0 = emulator.cpuSeconds();
        const r = await get(c.path, c.query);
        const cpu1 = emulator.cpuSeconds();
        if (r.json.session_count !== c.expect) throw new Error(`${c.label}: ${r.json.session_count} sessions, expected ${c.expect}`);
        if (rep < WARMUP) continue;
        samples[c.key].ms.push(r.ms);
        if (cpu0 !== null && cpu1 !== null) samples[c.key].cpuMs.push((cpu1 - cpu0) * 1000);
        samples[c.key].bytes = r.bytes;
      }
    }

    const figures = cases.map((c) => {
      const s = samples[c.key];
      const med = median(s.ms);
      const cpu = s.cpuMs.length ? ` (emulator CPU ${fmtMs(median(s.cpuMs), 0)})` : '';
      return {
        label: c.label,
        value: `${fmtMs(med)} median, p95 ${fmtMs(percentile(s.ms, 95))}; ${(s.bytes / 1024).toFixed(0)} KB${cpu}`,
        ...(c.target ? { target: `<= ${c.target} ms`, met: med <= c.target } : {}),
      };
    });
    return {
      name: 'history',
      title: 'History at scale (E11–E13, 10,000 sessions)',
      ok: true,
      figures,
      details: {
        sessions,
        seedMs: round(seedMs, 0),
        reps: REPS,
        results: Object.fromEntries(cases.map((c) => [c.key, {
          medianMs: round(median(samples[c.key].ms), 2),
          p95Ms: round(percentile(samples[c.key].ms, 95), 2),
          emulatorCpuMs: samples[c.key].cpuMs.length ? round(median(samples[c.key].cpuMs), 1) : null,
          bytes: samples[c.key].bytes,
        }])),
      },
      notes: [
        `POST /_emulator/history seeded ${HISTORY_SESSIONS} sessions (3 turns each) in ${(seedMs / 1000).toFixed(1)} s; emulator in its own process; ${REPS} requests per row after ${WARMUP} discarded, alternating`,
        'the emulator\'s CPU comes from /proc in 10 ms ticks: per-request figures under ~20 ms are coarse',
      ],
    };
  } finally {
    await emulator.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('history', 'History at scale', main);
}
