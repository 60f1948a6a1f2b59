#!/usr/bin/env node
// Benchmark: calls on the network lab's profiles, side by side (docs/quality.md). For each profile
// a fresh emulator puts its media behind the lab (`startEmulator({ network })`); VoiceSession in
// Chromium calls it from the bench page with a fake microphone that loops a spoken question
// (test/fixtures/audio/e2e-question.wav: the question, then 12 s of silence, so one turn per loop).
// Per profile: time to connected, perceived latency p50/p95 beside the service's firstResponseMs,
// the call's MOS, turns completed of those expected, and the recovery after a 4 s outage (from the
// outage's end to `connected` again; the detection time beside it).
//
//   BENCH_NET_PROFILES=wifi,3g-poor   only these profiles (default all but `none`)
//   BENCH_NET_TURNS=2                 voice turns per call: half before the outage, the rest after
import path from 'node:path';
import { chromiumPath, fmtMs, log, root, runBenchmark, withTimeout } from './lib/common.mjs';
import { loadEmulator, loadLab } from './lib/kb.mjs';
import { percentile } from './lib/stats.mjs';
import { bundlePage, CHROMIUM_FLAGS, openBenchPage, servePage } from './time-to-connected.mjs';

const PROFILES = (process.env.BENCH_NET_PROFILES ?? 'wifi,4g,congested-wifi,satellite,3g-poor').split(',').map((s) => s.trim()).filter(Boolean);
const TURNS = Math.max(2, Number(process.env.BENCH_NET_TURNS ?? 2));
const OUTAGE_MS = 4000;
const MIC = path.join(root, 'test/fixtures/audio/e2e-question.wav');

const round = (x) => (Number.isFinite(x) ? Math.round(x) : null);
const pctl = (xs, p) => (xs.length ? percentile(xs, p) : NaN);

async function runProfile(chromium, appJs, { startEmulator, LabRoute }, profile, seed) {
  // A fixed seed per profile: the same packet fates in every run.
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: 0, network: new LabRoute({ profile, seed }), realtime: { voice: 'flite' } });
  const site = await servePage(appJs, emulator.url, (req, res) => {
    if (req.method !== 'POST' || !req.url.startsWith('/_bench/outage')) return false;
    const ms = Number(new URL(req.url, 'http://x').searchParams.get('ms') ?? OUTAGE_MS);
    emulator.network.outage(ms);
    res.writeHead(204).end();
    return true;
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [...CHROMIUM_FLAGS, '--autoplay-policy=no-user-gesture-required', `--use-file-for-fake-audio-capture=${MIC}`],
  });
  try {
    const page = await browser.newPage();
    const q = new URLSearchParams({ ai_id: emulator.fixtures.robotId, api_key: emulator.apiKey });
    await openBenchPage(page, `${site.url}/?${q}`);
    const before = Math.floor(TURNS / 2);
    const r = await withTimeout(
      page.evaluate((o) => window.bench.profileCall(o), { before, after: TURNS - before, outageMs: OUTAGE_MS }),
      (TURNS + 2) * 50_000,
      `${profile} call`,
    );
    if (!r.ok) throw new Error(`${profile}: ${r.error}`);
    const voice = r.turns.filter((t) => t.input === 'voice');
    const perceived = voice.map((t) => t.perceivedLatencyMs).filter((x) => x !== null);
    const first = voice.map((t) => t.firstResponseMs).filter((x) => x !== null);
    const lab = emulator.network.labs.reduce((a, l) => {
      const c = l.counters;
      return { packets: a.packets + c.up.packets + c.down.packets, dropped: a.dropped + c.up.dropped + c.down.dropped - c.up.outageDropped - c.down.outageDropped };
    }, { packets: 0, dropped: 0 });
    return {
      profile,
      connectedMs: round(r.connectedMs),
      perceived: { p50: round(pctl(perceived, 50)), p95: round(pctl(perceived, 95)), n: perceived.length },
      firstResponse: { p50: round(pctl(first, 50)), p95: round(pctl(first, 95)) },
      mos: r.quality.mos,
      rttMs: r.quality.rttMs,
      packetLossPct: r.quality.packetLossPct,
      labLossPct: lab.packets ? Math.round((1000 * lab.dropped) / lab.packets) / 10 : null,
      turns: `${voice.length}/${r.expectedTurns}`,
      recoveryMs: round(r.recoveryMs),
      detectMs: round(r.detectMs),
      reconnects: r.quality.reconnects,
    };
  } finally {
    await browser.close().catch(() => {});
    site.close();
    await emulator.close().catch(() => {});
  }
}

async function main() {
  const { chromium } = await import('playwright-core');
  const { startEmulator } = await loadEmulator();
  const { LabRoute } = await loadLab();
  const appJs = await bundlePage();
  const rows = [];
  const failures = [];
  for (const [i, profile] of PROFILES.entries()) {
    try {
      const row = await runProfile(chromium, appJs, { startEmulator, LabRoute }, profile, i + 1);
      rows.push(row);
      log(`network-profiles: ${profile}: connected ${row.connectedMs} ms, perceived p50 ${row.perceived.p50} ms (service ${row.firstResponse.p50} ms), MOS ${row.mos.mean}, turns ${row.turns}, recovery ${row.recoveryMs} ms`);
    } catch (err) {
      failures.push(`${profile}: ${String(err?.message ?? err)}`);
      log(`network-profiles: ${profile} failed: ${err?.message ?? err}`);
    }
  }
  const ok = rows.length === PROFILES.length;
  // MOS must fall with every worse profile (they are listed best first).
  const ordered = rows.every((r, i) => i === 0 || (r.mos.mean ?? 0) < (rows[i - 1].mos.mean ?? 0));
  const allTurns = rows.every((r) => r.turns.split('/')[0] === r.turns.split('/')[1]);
  return {
    name: 'network-profiles',
    title: '1c. Network profiles (Chromium through the network lab)',
    ok,
    ...(ok ? {} : { error: failures.join('; ') }),
    figures: [
      ...rows.map((r) => ({
        label: `${r.profile}: connected · perceived p50/p95 (service firstResponse p50) · MOS mean/min · turns · recovery after a 4 s outage`,
        value: `${fmtMs(r.connectedMs, 0)} · ${fmtMs(r.perceived.p50, 0)}/${fmtMs(r.perceived.p95, 0)} (${fmtMs(r.firstResponse.p50, 0)}) · ${r.mos.mean ?? 'n/a'}/${r.mos.min ?? 'n/a'} · ${r.turns} · ${fmtMs(r.recoveryMs, 0)} (lost after ${fmtMs(r.detectMs, 0)})`,
      })),
      { label: 'MOS falls with every worse profile', value: rows.map((r) => `${r.profile} ${r.mos.mean}`).join(' > '), target: 'strictly decreasing', met: ok && ordered },
      { label: 'every expected voice turn completed (an outage loses none)', value: rows.map((r) => `${r.profile} ${r.turns}`).join(', '), target: 'all', met: ok && allTurns },
    ],
    details: { rows, turnsPerCall: TURNS, outageMs: OUTAGE_MS, failures },
    notes: [
      `one call per profile, ${TURNS} spoken turns (half before a ${OUTAGE_MS / 1000} s outage, half after), the emulator's Flite voice; recovery is measured from the outage's end to connected again`,
      'perceived latency: from the end of the caller\'s speech at the client (microphone level) to the first audible answer sound (remote level); firstResponseMs is the service\'s own figure (docs/quality.md)',
      'labLossPct in details: what the lab dropped outside outages, both directions, all packets (STUN, RTCP, data channel included)',
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('network-profiles', '1c. Network profiles', main);
}
