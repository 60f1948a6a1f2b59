#!/usr/bin/env node
// Benchmark: where a spoken turn's time goes (docs/quality.md "Where the time goes"). VoiceSession
// in Node (@roamhq/wrtc) calls the emulator on loopback with the Flite voice; a FakeMicrophone speaks
// a Flite question (its words scripted, so every turn asks and answers the same), and a Node level
// meter (an RTCAudioSink per track) measures the perceived latency's ends. Per turn: Turn.timing.
// Node has no audio output: `playback` is null there, so the client's own share is `buffering`.
//
//   BENCH_PL_TURNS=8                voice turns per profile
//   BENCH_PL_PROFILES=wifi,4g       lab profiles after loopback (default: loopback only)
import { fmtMs, log, runBenchmark } from './lib/common.mjs';
import { loadClient, loadEmulator, loadLab, loadWrtc } from './lib/kb.mjs';
import { median, percentile } from './lib/stats.mjs';

const TURNS = Math.max(3, Number(process.env.BENCH_PL_TURNS ?? 8));
const PROFILES = ['loopback', ...(process.env.BENCH_PL_PROFILES ?? '').split(',').map((s) => s.trim()).filter(Boolean)];
const HANGOVER_MS = 600; // the emulator's VAD: silence that ends an utterance
const PHASES = ['endpointing', 'service', 'network', 'buffering', 'playback'];
const QUESTION = 'How long is the warranty?';

const p50 = (xs) => (xs.length ? median(xs) : NaN);
const p95 = (xs) => (xs.length ? percentile(xs, 95) : NaN);

function sinkMeter(wrtc) {
  return (stream) => {
    const track = stream.getAudioTracks()[0];
    if (!track) return undefined;
    const sink = new wrtc.nonstandard.RTCAudioSink(track);
    let level = 0;
    sink.ondata = ({ samples }) => {
      let sum = 0;
      for (let i = 0; i < samples.length; i++) sum += (samples[i] / 32768) ** 2;
      const rms = Math.sqrt(sum / samples.length);
      level = rms > 0 ? Math.min(1, Math.max(0, (20 * Math.log10(rms) + 60) / 60)) : 0;
    };
    return { read: () => level, close: () => sink.stop() };
  };
}

async function runProfile(profile, { VoiceSession, createApiClient }, { startEmulator, FakeMicrophone }, lab, wrtc, wav) {
  const network = profile === 'loopback' ? undefined : new lab.LabRoute({ profile, seed: 1 });
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: 0, realtime: { voice: 'flite' }, ...(network ? { network } : {}) });
  const mic = new FakeMicrophone({ emulatorUrl: emulator.url });
  const session = new VoiceSession({
    aiId: emulator.fixtures.robotId, api: createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey }), wrtc,
    microphone: mic.open, language: 'en', levelMeter: sinkMeter(wrtc), heartbeatIntervalMs: 250,
  });
  const turns = [];
  try {
    await session.start();
    await new Promise((resolve) => session.once('quality', resolve)); // pongs and a jitter-buffer sample first
    for (let i = 0; i < TURNS; i++) {
      const done = new Promise((resolve) => session.once('turn', resolve));
      await mic.playWav(wav, { transcript: QUESTION, sessionId: session.sessionId });
      const turn = await done;
      turns.push({ firstResponseMs: turn.firstResponseMs, perceivedLatencyMs: turn.perceivedLatencyMs, ...turn.timing });
      log(`perceived-latency ${profile}: turn ${i + 1}/${TURNS} perceived ${turn.perceivedLatencyMs} ms (${PHASES.map((p) => `${p} ${turn.timing[`${p}Ms`]}`).join(', ')})`);
    }
  } finally {
    await session.end({ mode: 'immediate' }).catch(() => {});
    mic.close();
    await emulator.close().catch(() => {});
  }
  const of = (key) => turns.map((t) => t[key]).filter((v) => typeof v === 'number');
  return {
    profile, turns,
    perceived: { p50: p50(of('perceivedLatencyMs')), p95: p95(of('perceivedLatencyMs')) },
    firstResponse: p50(of('firstResponseMs')),
    phases: Object.fromEntries(PHASES.map((p) => [p, p50(of(`${p}Ms`))])),
    clientShare: p50(turns.filter((t) => t.bufferingMs !== null).map((t) => t.bufferingMs + (t.playbackMs ?? 0))),
  };
}

export async function main() {
  const [client, emu, lab, wrtc, tts] = await Promise.all([loadClient(), loadEmulator(), loadLab(), loadWrtc(), import('kb-voice-emulator/tts')]);
  const { wav } = await tts.speak(QUESTION);
  const rows = [];
  for (const profile of PROFILES) rows.push(await runProfile(profile, client, emu, lab, wrtc, wav));
  const loop = rows[0];
  const budget = HANGOVER_MS + loop.firstResponse + 150;
  const phaseText = (r) => PHASES.map((p) => `${p} ${Number.isFinite(r.phases[p]) ? fmtMs(r.phases[p], 0) : '–'}`).join(', ');
  return {
    name: 'perceived-latency',
    title: 'Perceived latency and where it goes (Node, wrtc)',
    ok: true,
    figures: [
      {
        label: 'Perceived latency on loopback, Flite (p50 / p95)',
        value: `${fmtMs(loop.perceived.p50, 0)} / ${fmtMs(loop.perceived.p95, 0)} (hangover ${HANGOVER_MS} + first response p50 ${fmtMs(loop.firstResponse, 0)} + 150 = ${fmtMs(budget, 0)})`,
        target: '<= hangover + first response + 150 ms (p50)',
        met: loop.perceived.p50 <= budget,
      },
      {
        label: "Client's own share on loopback: first packet -> audible (p50; Node: buffering only)",
        value: fmtMs(loop.clientShare, 0),
        target: '<= 60 ms',
        met: loop.clientShare <= 60,
      },
      ...rows.map((r) => ({ label: `Phases p50, ${r.profile}`, value: `${phaseText(r)} (perceived p50 ${fmtMs(r.perceived.p50, 0)}, p95 ${fmtMs(r.perceived.p95, 0)})` })),
    ],
    details: { turnsPerProfile: TURNS, hangoverMs: HANGOVER_MS, rows },
    notes: [
      `${TURNS} voice turns per profile; the question spoken by Flite into a FakeMicrophone, its words scripted; the answer in the emulator's Flite voice`,
      'Node client: levels from RTCAudioSink meters read every 20 ms; no audio output, so playback is null and the perceived latency ends where the answer leaves the receiver',
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('perceived-latency', 'Perceived latency', main);
}
