#!/usr/bin/env node
// Benchmark 2: warmup (Node side: VoiceSession over @roamhq/wrtc against the emulator).
//
// a) First-answer latency of a fresh (cold) robot with and without warmup. Before each call
//    POST /_emulator/reset makes the robot cold again. VoiceSession always fires the E1 warmup
//    when it connects; "without" sets the emulator's warmup fault to `fail` (the warmup's
//    upstream step errors, the robot stays cold, the first answer pays the build), "with" lets
//    that same warmup succeed and waits for `session.warmup === 'ok'` before asking. The first
//    answer is a typed question (sendText); its latency is the emulator's first_response_ms (end
//    of input -> first audio frame), the client-side send -> assistant audio time is kept too.
//    Target: the warm first answer saves the whole agent build (saving >= 90% of agentBuildMs).
// b) Connection time (start() -> connected) with a hanging warmup (fault `hang`) vs none (an api
//    whose realtime.warmup resolves at once without any request). Target: hanging adds 0, i.e.
//    the 95% bootstrap interval of the difference of medians contains 0 (connection times on a
//    loaded 2-core machine scatter by ~100 ms, so a fixed few-ms tolerance would judge noise).
// Calls alternate (ABAB) so drift hits both sides alike. agentBuildMs is 1500 ms instead of the
// default 5700 ms to keep the run short (BENCH_AGENT_BUILD_MS overrides); the saving is reported
// as a fraction of it.
import { fmtMs, fmtPct, log, runBenchmark } from './lib/common.mjs';
import { control, loadClient, loadEmulator, loadLab, loadWrtc } from './lib/kb.mjs';
import { nextEvent, textTurn, warmupSettled } from './lib/node-caller.mjs';
import { bootstrapDiffCI, median, round, summarize } from './lib/stats.mjs';

const AGENT_BUILD_MS = Number(process.env.BENCH_AGENT_BUILD_MS ?? 1500);
const ANSWER_PAIRS = Number(process.env.BENCH_WARMUP_PAIRS ?? 4);
const CONNECT_PAIRS = Number(process.env.BENCH_CONNECT_PAIRS ?? 12);
const QUESTION = 'How long does the kettle take to boil water?';

export async function main() {
  const { startEmulator, FakeMicrophone } = await loadEmulator();
  const { VoiceSession, createApiClient } = await loadClient();
  const wrtc = await loadWrtc();
  const { seededRandom } = await loadLab();
  // Built-in voice: same for both sides and independent of espeak-ng being installed.
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: AGENT_BUILD_MS, realtime: { voice: 'builtin' } });
  const ctl = control(emulator.url);
  const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  // The same client with only realtime.warmup replaced by a no-op: "no warmup at all".
  const noWarmupApi = { ...api, realtime: Object.assign(Object.create(api.realtime), { warmup: async () => ({ success: true }) }) };
  const aiId = emulator.fixtures.robotId;

  async function call({ fault, apiOverride, ask }) {
    await ctl.reset();
    await ctl.faults({ warmup: fault, latencyMs: 0 });
    const mic = new FakeMicrophone();
    const session = new VoiceSession({ aiId, api: apiOverride ?? api, wrtc, microphone: mic.open, language: 'en' });
    try {
      const t0 = performance.now();
      await session.start();
      const connectMs = performance.now() - t0;
      if (!ask) return { connectMs };
      const warmup = await warmupSettled(session);
      const { turn, clientFirstAudioMs } = await textTurn(session, QUESTION, { interrupt: true });
      return { connectMs, warmup, firstResponseMs: turn.firstResponseMs, agentBuildMs: turn.agentBuildMs, clientFirstAudioMs };
    } finally {
      await session.end({ mode: 'immediate' }).catch(() => {});
      mic.close();
    }
  }

  try {
    // Warm-up of the benchmark itself (JIT, wrtc init), not measured.
    await call({ fault: 'ok', ask: true });

    const cold = [];
    const warm = [];
    for (let i = 0; i < ANSWER_PAIRS; i++) {
      warm.push(await call({ fault: 'ok', ask: true }));
      cold.push(await call({ fault: 'fail', ask: true }));
      log(`warmup: pair ${i + 1}/${ANSWER_PAIRS}: warm ${warm.at(-1).firstResponseMs} ms (build paid ${warm.at(-1).agentBuildMs}), cold ${cold.at(-1).firstResponseMs} ms (build paid ${cold.at(-1).agentBuildMs})`);
    }
    const none = [];
    const hang = [];
    for (let i = 0; i < CONNECT_PAIRS; i++) {
      none.push(await call({ fault: 'ok', apiOverride: noWarmupApi, ask: false }));
      hang.push(await call({ fault: 'hang', ask: false }));
    }
    await ctl.faults({ warmup: 'ok', latencyMs: 0 });

    const fr = (xs) => xs.map((x) => x.firstResponseMs);
    const coldMed = median(fr(cold));
    const warmMed = median(fr(warm));
    const saving = coldMed - warmMed;
    const savingFraction = saving / AGENT_BUILD_MS;
    const noneMed = median(none.map((x) => x.connectMs));
    const hangMed = median(hang.map((x) => x.connectMs));
    const added = hangMed - noneMed;
    const addedCI = bootstrapDiffCI(none.map((x) => x.connectMs), hang.map((x) => x.connectMs), { random: seededRandom(1) });
    const badWarm = warm.filter((x) => x.warmup !== 'ok' || x.agentBuildMs !== 0).length;
    const badCold = cold.filter((x) => x.warmup !== 'failed' || x.agentBuildMs === 0).length;
    const notes = [
      `agentBuildMs ${AGENT_BUILD_MS} ms (default 5700 ms; smaller to bound the run); built-in emulator voice; ${ANSWER_PAIRS} warm/cold pairs, ${CONNECT_PAIRS} none/hang pairs, alternating; POST /_emulator/reset before every call`,
      `client-side send -> assistant audio (median): warm ${fmtMs(median(warm.map((x) => x.clientFirstAudioMs)))}, cold ${fmtMs(median(cold.map((x) => x.clientFirstAudioMs)))}`,
      `build paid per first answer (emulator's agent_build_ms, median): warm ${median(warm.map((x) => x.agentBuildMs))} ms, cold ${median(cold.map((x) => x.agentBuildMs))} ms`,
    ];
    if (badWarm || badCold) notes.push(`unexpected: ${badWarm} warm call(s) not warm, ${badCold} cold call(s) not cold`);
    return {
      name: 'warmup',
      title: '2. Warmup (Node, wrtc)',
      ok: true,
      figures: [
        {
          label: 'First answer, cold robot: warm vs no warmup (median first_response_ms)',
          value: `${fmtMs(warmMed, 0)} vs ${fmtMs(coldMed, 0)}: saves ${fmtMs(saving, 0)} = ${fmtPct(savingFraction)} of the ${AGENT_BUILD_MS} ms build`,
          target: 'saves the whole build (>= 90%)',
          met: savingFraction >= 0.9 && badWarm === 0,
        },
        {
          label: 'Connection time: hanging warmup vs none (median)',
          value: `${added >= 0 ? '+' : ''}${fmtMs(added)} (${fmtMs(hangMed)} vs ${fmtMs(noneMed)}; 95% CI ${addedCI.low.toFixed(0)}..${addedCI.high.toFixed(0)} ms)`,
          target: 'adds 0 (95% CI contains 0)',
          met: addedCI.low <= 0 && addedCI.high >= 0,
        },
      ],
      details: {
        agentBuildMs: AGENT_BUILD_MS, savingMs: round(saving, 1), savingFraction: round(savingFraction, 4), hangAddedMs: round(added, 2), hangAddedCI: addedCI,
        firstResponse: { warm: summarize(fr(warm)), cold: summarize(fr(cold)) },
        connect: { none: summarize(none.map((x) => x.connectMs)), hang: summarize(hang.map((x) => x.connectMs)) },
        calls: { warm, cold, none, hang },
      },
      notes,
    };
  } finally {
    await emulator.close().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('warmup', '2. Warmup', main);
}
