#!/usr/bin/env node
// Benchmark: VoiceSession's ICE paths in Chromium against the emulator, each comparison side by
// side in one run (bench/page/app.js runs the calls; see time-to-connected.mjs for the page setup):
// - no ICE servers vs one silent STUN server (a local UDP socket that never answers, as behind a
//   firewall dropping UDP): trickle ICE must not wait for it. Target: <= 1.2x the no-server figure.
// - TURN only (`iceTransportPolicy: 'relay'`) through a local coturn over TCP on loopback (the
//   enterprise path when UDP is blocked): connects; time reported. Skipped, and said so, without
//   coturn (/usr/bin/turnserver, Debian's `coturn`).
// - the same silent-STUN comparison for VoiceSession in Node (@roamhq/wrtc), plus a non-trickle
//   session (`trickle: false`) that waits for gathering up to `gatherTimeoutMs` (1 s, where
//   simple-peer's own wait was 5 s).
// - recovery after the network path is cut: time from the cut to `connected` again, by ICE restart
//   in place vs by a new offer (restart disabled), with a 250 ms heartbeat (detection ~0.75-1 s,
//   reported apart). The path is a UDP relay the bench cuts (bench/lib/ice-path.mjs).
import { chromiumPath, fmtMs, log, runBenchmark, sleep, withTimeout } from './lib/common.mjs';
import { relayedSignaling, startCoturn, startSilentStun, TURNSERVER } from './lib/ice-path.mjs';
import { loadClient, loadEmulator, loadWrtc } from './lib/kb.mjs';
import { median, round, summarize } from './lib/stats.mjs';
import { bundlePage, CHROMIUM_FLAGS, openBenchPage, servePage } from './time-to-connected.mjs';

const CALLS = Number(process.env.BENCH_ICE_CALLS ?? 10); // per variant
const TURN_CALLS = Math.max(3, Math.round(CALLS / 2));
const RECOVERY_CALLS = Math.max(3, Math.round(CALLS / 2));
const PAUSE_MS = 250;

export async function main() {
  const { chromium } = await import('playwright-core');
  const { startEmulator } = await loadEmulator();
  const appJs = await bundlePage();
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  const stun = await startSilentStun();
  let coturn = null;
  let coturnError;
  try {
    coturn = await startCoturn();
  } catch (err) {
    coturnError = String(err?.message ?? err);
  }
  let relayed = null;
  const site = await servePage(appJs, emulator.url, (req, res) => {
    if (req.url === '/_bench/drop' && req.method === 'POST') {
      relayed?.drop();
      res.writeHead(204).end();
      return true;
    }
    if (!relayed || !/\/realtime\/sessions(\/[^/]+)?$/.test(req.url) || (req.method !== 'POST' && req.method !== 'PATCH')) return false;
    relayed.handle(req, res).catch((e) => res.writeHead(502).end(String(e)));
    return true;
  });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  const notes = [];
  const figures = [];
  const details = { browser: browser.version() };
  try {
    const page = await browser.newPage();
    const q = new URLSearchParams({ ai_id: emulator.fixtures.robotId, api_key: emulator.apiKey });
    const pageErrors = await openBenchPage(page, `${site.url}/?${q}`);
    const pause = () => sleep(PAUSE_MS);
    const call = async (opts) => {
      const r = await withTimeout(page.evaluate((o) => window.bench.run('library', o), opts), 30000, 'library call');
      await pause();
      return r;
    };

    // 1. No ICE servers vs one silent STUN server, alternating.
    const variants = { none: {}, silentStun: { iceServers: [{ urls: stun.url }] } };
    const runs = { none: [], silentStun: [] };
    const failures = [];
    for (let i = 0; i < 2; i++) for (const opts of Object.values(variants)) await call(opts);
    for (let i = 0; i < CALLS; i++) {
      for (const [name, opts] of Object.entries(variants)) {
        const r = await call(opts);
        if (r.ok) runs[name].push(r);
        else failures.push({ name, error: r.error });
      }
    }
    const none = median(runs.none.map((r) => r.total));
    const silent = median(runs.silentStun.map((r) => r.total));
    const stunOk = runs.none.length >= CALLS * 0.8 && runs.silentStun.length >= CALLS * 0.8;
    figures.push({
      label: 'Time to connected, one silent STUN server vs none (median)',
      value: `${(silent / none).toFixed(2)}x (${fmtMs(silent)} vs ${fmtMs(none)})`, target: '<= 1.2x', met: stunOk && silent / none <= 1.2,
    });
    notes.push(`silent STUN: ${CALLS} calls per variant, alternating; the STUN socket received ${stun.received} requests and answered none; library ICE signaling ${[...new Set(runs.silentStun.map((r) => r.iceSignaling))].join(', ')}`);
    details.stun = { none: summarize(runs.none.map((r) => r.total)), silentStun: summarize(runs.silentStun.map((r) => r.total)), failures };
    log(`ice-paths: none ${fmtMs(none)}, silent STUN ${fmtMs(silent)}`);

    // 1b. The same in Node, plus a session that does not trickle.
    const node = await nodeCalls(emulator, stun.url);
    const nodeMed = (k) => median(node.runs[k]);
    figures.push({
      label: 'Node (wrtc) time to connected, one silent STUN server vs none (median)',
      value: `${(nodeMed('silentStun') / nodeMed('none')).toFixed(2)}x (${fmtMs(nodeMed('silentStun'))} vs ${fmtMs(nodeMed('none'))}); trickle off: ${fmtMs(nodeMed('completeSilentStun'))}`,
      target: '<= 1.2x', met: nodeMed('silentStun') / nodeMed('none') <= 1.2,
    });
    details.node = Object.fromEntries(Object.entries(node.runs).map(([k, v]) => [k, summarize(v)]));
    if (node.failures.length) notes.push(`node failures: ${node.failures.slice(0, 3).join('; ')}`);

    // 2. TURN only, over TCP, through coturn.
    if (!coturn) {
      figures.push({ label: 'Time to connected, TURN only over TCP (coturn on loopback)', value: coturnError ? `coturn failed to start: ${coturnError.slice(0, 120)}` : `coturn not installed (${TURNSERVER}; apt-get install coturn)`, target: 'connects', met: false });
    } else {
      const turn = [];
      const turnFailures = [];
      for (let i = 0; i < TURN_CALLS + 1; i++) {
        const r = await call({ iceServers: [coturn.iceServer], iceTransportPolicy: 'relay' });
        if (i === 0) continue; // warm-up: coturn's first allocation
        if (r.ok) turn.push(r);
        else turnFailures.push(r.error);
      }
      const m = median(turn.map((r) => r.total));
      figures.push({
        label: 'Time to connected, TURN only over TCP (coturn on loopback; median)',
        value: turn.length ? `${fmtMs(m)} (${(m / none).toFixed(2)}x no servers; ${turn.length}/${TURN_CALLS} connected)` : `did not connect: ${turnFailures[0]}`,
        target: 'connects', met: turn.length === TURN_CALLS,
      });
      details.turn = { calls: summarize(turn.map((r) => r.total)), failures: turnFailures };
      notes.push(`TURN: iceServers [${coturn.iceServer.urls}], iceTransportPolicy relay; coturn relays on 127.0.0.1 to the emulator's host candidate`);
    }

    // 3. Recovery after a cut path: ICE restart vs new offer, alternating.
    relayed = relayedSignaling(emulator.url);
    const recovery = { restart: [], newOffer: [] };
    const recoveryFailures = [];
    for (let i = 0; i < RECOVERY_CALLS; i++) {
      for (const [name, noRestart] of [['restart', false], ['newOffer', true]]) {
        const up = await call({ keep: true, heartbeatIntervalMs: 250, noRestart });
        if (!up.ok) {
          recoveryFailures.push({ name, error: `call: ${up.error}` });
          await page.evaluate(() => window.bench.recover()).catch(() => undefined);
          continue;
        }
        const r = await withTimeout(page.evaluate(() => window.bench.recover()), 30000, 'recovery');
        await pause();
        if (r.ok) recovery[name].push(r);
        else recoveryFailures.push({ name, error: r.error });
      }
    }
    relayed = null;
    const restoreOf = (xs) => median(xs.map((r) => r.restore));
    const totalOf = (xs) => median(xs.map((r) => r.total));
    const pathOf = (xs) => median(xs.map((r) => r.path).filter(Number.isFinite));
    const recOk = recovery.restart.length >= RECOVERY_CALLS * 0.8 && recovery.newOffer.length >= RECOVERY_CALLS * 0.8;
    figures.push({
      label: 'Recovery after a cut path: reconnecting -> connected, ICE restart vs new offer (median)',
      value: `${fmtMs(restoreOf(recovery.restart))} vs ${fmtMs(restoreOf(recovery.newOffer))} (from the cut: ${fmtMs(totalOf(recovery.restart))} vs ${fmtMs(totalOf(recovery.newOffer))}; ICE pair working again ${fmtMs(pathOf(recovery.restart))} vs ${fmtMs(pathOf(recovery.newOffer))} after the cut)`,
      target: 'reported', met: recOk,
    });
    notes.push(`recovery: ${RECOVERY_CALLS} cuts per variant; heartbeat 250 ms, so the cut is noticed after ${fmtMs(median([...recovery.restart, ...recovery.newOffer].map((r) => r.detect)))} (median); the restart keeps the peer connection, data channel and the emulator's connection; the new offer makes all three anew (same session). "ICE pair working again": getStats() shows a new selected, succeeded candidate pair (the media path is back); "connected" also needs a ping answered over the data channel, whose SCTP retransmission timer backed off during the cut (a new offer starts a fresh association)`);
    details.recovery = {
      restart: { restore: summarize(recovery.restart.map((r) => r.restore)), total: summarize(recovery.restart.map((r) => r.total)), path: summarize(recovery.restart.map((r) => r.path).filter(Number.isFinite)) },
      newOffer: { restore: summarize(recovery.newOffer.map((r) => r.restore)), total: summarize(recovery.newOffer.map((r) => r.total)), path: summarize(recovery.newOffer.map((r) => r.path).filter(Number.isFinite)) },
      failures: recoveryFailures, raw: recovery,
    };
    if (failures.length + recoveryFailures.length) notes.push(`failures: ${[...failures, ...recoveryFailures].slice(0, 3).map((f) => `${f.name}: ${f.error}`).join('; ')}`);
    if (pageErrors.length) notes.push(`page errors: ${pageErrors.slice(0, 3).join(' | ')}`);
    const ok = stunOk && recOk;
    return {
      name: 'ice-paths',
      title: '1b. ICE paths (Chromium, Node): silent STUN, TURN over TCP, recovery',
      ok,
      ...(ok ? {} : { error: 'too few successful calls' }),
      figures,
      details: { ...details, ratioSilentStun: round(silent / none, 3) },
      notes,
    };
  } finally {
    await browser.close().catch(() => {});
    site.close();
    stun.close();
    await coturn?.close();
    await emulator.close().catch(() => {});
  }
}

/** VoiceSession in Node against the emulator: `start()` to resolved, per variant, alternating. */
async function nodeCalls(emulator, stunUrl) {
  const { VoiceSession, createApiClient, simplePeerTransport } = await loadClient();
  const { FakeMicrophone } = await loadEmulator();
  const wrtc = await loadWrtc();
  const api = createApiClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const variants = {
    none: {},
    silentStun: { iceServers: [{ urls: stunUrl }] },
    completeSilentStun: { iceServers: [{ urls: stunUrl }], trickle: false },
  };
  const runs = { none: [], silentStun: [], completeSilentStun: [] };
  const failures = [];
  for (let i = 0; i < CALLS + 1; i++) {
    for (const [name, opts] of Object.entries(variants)) {
      const mic = new FakeMicrophone();
      const session = new VoiceSession({ aiId: emulator.fixtures.robotId, api, microphone: mic.open, language: 'en', transport: simplePeerTransport({ wrtc, ...opts }) });
      session.on('error', () => undefined);
      const t0 = performance.now();
      try {
        await withTimeout(session.start(), 15000, `node ${name} call`);
        if (i > 0) runs[name].push(performance.now() - t0); // the first round warms up
      } catch (err) {
        failures.push(`${name}: ${err?.message ?? err}`);
      } finally {
        await session.end({ mode: 'immediate' });
        mic.close();
        await sleep(PAUSE_MS);
      }
    }
  }
  return { runs, failures };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('ice-paths', '1b. ICE paths', main);
}
