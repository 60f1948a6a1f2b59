#!/usr/bin/env node
// Benchmark: VoiceSession.report() of one call, through a relay that scopes an end user (role
// `user`), against a robot with 0, 10, 1,000 and 10,000 past sessions (seeded with
// POST /_emulator/history in an emulator process of its own). report() asks E12/E13 for its own
// call's window only, and the relay checks the user's session without walking the history, so the
// cost must not grow with it. Target (issue 23): with 10,000 past sessions <= 1.5x the cost with none.
import { fmtMs, log, runBenchmark } from './lib/common.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { control, loadClient, loadEmulator, loadRelay, loadWrtc } from './lib/kb.mjs';
import { median, round } from './lib/stats.mjs';

const LEVELS = [0, 10, 1_000, 10_000];
const REPS = Number(process.env.BENCH_REPORT_REPS ?? 15);
const WARMUP = 3;
const TARGET_RATIO = 1.5;

export async function main() {
  const { VoiceSession, createApiClient } = await loadClient();
  const { createRelay, serveRelay } = await loadRelay();
  const { FakeMicrophone } = await loadEmulator();
  const wrtc = await loadWrtc();
  const emulator = await startEmulatorProcess({ agentBuildMs: 10 });
  const relay = await serveRelay(createRelay({
    upstream: emulator.url, apiKey: emulator.apiKey, prefix: '/api/voice', logger: () => undefined,
    robots: '*', authorize: () => ({ userIdentifier: 'bench-user', role: 'user' }),
  }), { port: 0, host: '127.0.0.1' });
  const mic = new FakeMicrophone();
  try {
    const ctl = control(emulator.url);
    const session = new VoiceSession({
      aiId: emulator.fixtures.robotId, api: createApiClient({ baseUrl: `${relay.url}/api/voice` }),
      wrtc, microphone: mic.open, language: 'en', levelMeter: () => undefined,
    });
    await session.start();
    await session.end({ mode: 'immediate' });
    const rows = [];
    let total = 0;
    for (const level of LEVELS) {
      if (level > total) total = (await ctl.history(level - total)).sessions - 1; // minus the measured call itself
      const times = [];
      let report;
      for (let i = 0; i < WARMUP + REPS; i++) {
        const t0 = performance.now();
        report = await session.report();
        if (i >= WARMUP) times.push(performance.now() - t0);
      }
      if (!report.usage || !report.cost) throw new Error(`report() with ${level} past sessions found no usage/cost record of its call`);
      rows.push({ past: level, ms: median(times), min: Math.min(...times), max: Math.max(...times) });
      log(`report() with ${level} past sessions: ${median(times).toFixed(1)} ms (median of ${REPS})`);
    }
    const none = rows[0].ms;
    const most = rows.at(-1);
    const ratio = most.ms / none;
    return {
      name: 'report-history',
      title: 'report() of one call against a long history (Node, through a user-scoped relay)',
      ok: true,
      figures: [
        { label: 'report() with 0 / 10 / 1,000 / 10,000 past sessions (median)', value: rows.map((r) => fmtMs(r.ms)).join(' / ') },
        { label: 'report() with 10,000 past sessions vs none', value: `${ratio.toFixed(2)}x (${fmtMs(most.ms)} vs ${fmtMs(none)})`, target: `<= ${TARGET_RATIO}x`, met: ratio <= TARGET_RATIO },
      ],
      details: { rows: rows.map((r) => ({ ...r, ms: round(r.ms, 2), min: round(r.min, 2), max: round(r.max, 2) })), reps: REPS },
      notes: [`each figure: the median of ${REPS} report() calls after ${WARMUP} discarded ones; a report is E13 + E12 (the call's window) + E14, in parallel, through the relay with role user`],
    };
  } finally {
    mic.close?.();
    await relay.close().catch(() => undefined);
    await emulator.stop().catch(() => undefined);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runBenchmark('report-history', 'report() against a long history', main);
}
