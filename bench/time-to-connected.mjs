#!/usr/bin/env node
// Benchmark 1: time to connected (click -> audio flowing both ways) of VoiceSession in Chromium
// against the emulator, next to two floors measured in the same run (bench/page/app.js says
// exactly what each waits for): a bare RTCPeerConnection that waits for ICE gathering before its
// offer (what the library did before trickle ICE), and a bare RTCPeerConnection that trickles the
// same way the library does (offer at once, candidates by PATCH to the session resource).
//
// This process runs the emulator and a tiny http server for the bench page (its script bundled by
// esbuild from the built package); the server proxies /v1 and /_emulator to the emulator so the
// page talks to it same-origin for every variant. Calls rotate library/floor/floor-trickle so a
// noisy machine's drift hits all alike. Targets: median(library) <= 0.6 x median(floor that waits
// for gathering) and <= 1.05 x median(trickling floor).
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { benchDir, chromiumPath, distDir, fmtMs, fmtPct, log, runBenchmark, withTimeout } from './lib/common.mjs';
import { loadEmulator, snapshotEntry } from './lib/kb.mjs';
import { median, round, summarize } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_TTC_CALLS ?? 20); // per variant
const WARMUP_CALLS = 2; // per variant, discarded (JIT, first getUserMedia, emulator code paths)
const PAUSE_MS = 250; // between calls, so the previous call's teardown is not measured
export const CHROMIUM_FLAGS = [
  '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', '--no-sandbox', '--disable-gpu',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

export async function bundlePage() {
  const out = await esbuild.build({
    entryPoints: [path.join(benchDir, 'page', 'app.js')],
    absWorkingDir: benchDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    // Always the built package (or BENCH_DIST's copy): left to itself esbuild would follow the root
    // tsconfig's `paths` to src/, whose simple-peer import only the build points at the vendored copy
    // (the raw package needs Node's `global`: the page never got ready).
    alias: { 'kb-voice': snapshotEntry('') ?? path.join(distDir, 'index.js') },
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

/**
 * Opens the bench page (bench/page/index.html) in `page` and waits until it says `ready`; a page that
 * does not within 15 s fails with its status and the errors it threw (otherwise a bare timeout).
 * Resolves the page's errors so far, a list that goes on filling (for later failures' messages).
 */
export async function openBenchPage(page, url) {
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready', null, { timeout: 15000 }).catch(async (error) => {
    const status = await page.evaluate(() => document.getElementById('status')?.textContent ?? '(no #status)').catch(() => '(page gone)');
    throw new Error(`the bench page did not get ready within 15 s: status ${JSON.stringify(status)}${pageErrors.length ? `; page errors: ${pageErrors.join(' | ')}` : ''}`, { cause: error });
  });
  return pageErrors;
}

/**
 * Serves the page and proxies everything else to the emulator (loopback only). `extra(req, res)`
 * may take a request first (returns true when it answered it): bench/ice-paths.mjs cuts and
 * re-routes the network path through it.
 */
export async function servePage(appJs, emulatorUrl, extra = () => false) {
  const html = await readFile(path.join(benchDir, 'page', 'index.html'), 'utf8');
  const upstream = new URL(emulatorUrl);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    if (req.url === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(appJs);
    if (req.url === '/' || req.url.startsWith('/?')) return res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    if (req.url === '/favicon.ico') return res.writeHead(204).end();
    if (extra(req, res)) return;
    const proxied = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host }, agent },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    proxied.on('error', (e) => res.writeHead(502).end(JSON.stringify({ detail: String(e) })));
    req.pipe(proxied);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => { server.closeAllConnections(); server.close(); agent.destroy(); } };
}

export async function main() {
  const { chromium } = await import('playwright-core');
  const { startEmulator } = await loadEmulator();
  const appJs = await bundlePage();
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  const site = await servePage(appJs, emulator.url);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage();
    const q = new URLSearchParams({ ai_id: emulator.fixtures.robotId, api_key: emulator.apiKey });
    const pageErrors = await openBenchPage(page, `${site.url}/?${q}`);
    const browserVersion = browser.version();

    const call = async (kind) => {
      const r = await withTimeout(page.evaluate((k) => window.bench.run(k), kind), 30000, `${kind} call`);
      await new Promise((res) => setTimeout(res, PAUSE_MS));
      return r;
    };
    const KINDS = ['library', 'floor', 'floor-trickle'];
    for (let i = 0; i < WARMUP_CALLS; i++) {
      for (const kind of KINDS) {
        const r = await call(kind);
        if (!r.ok) throw new Error(`warm-up ${kind} call failed: ${r.error}${pageErrors.length ? ' | ' + pageErrors.join(' | ') : ''}`);
      }
    }
    const results = { library: [], floor: [], 'floor-trickle': [] };
    const failures = [];
    for (let i = 0; i < CALLS; i++) {
      for (const kind of KINDS) {
        const r = await call(kind);
        if (r.ok) results[kind].push(r);
        else failures.push({ kind, i, error: r.error });
      }
      if ((i + 1) % 5 === 0) log(`time-to-connected: ${i + 1}/${CALLS} rounds (median so far library ${median(results.library.map((x) => x.total)).toFixed(1)} ms, floor ${median(results.floor.map((x) => x.total)).toFixed(1)} ms, trickling floor ${median(results['floor-trickle'].map((x) => x.total)).toFixed(1)} ms)`);
    }
    const lib = results.library.map((r) => r.total);
    const flo = results.floor.map((r) => r.total);
    const tri = results['floor-trickle'].map((r) => r.total);
    const mLib = median(lib);
    const mFloor = median(flo);
    const mTrickle = median(tri);
    const vsGather = mLib / mFloor;
    const vsTrickle = mLib / mTrickle;
    // Paired view: each library call against the trickling floor call of the same round.
    const n = Math.min(lib.length, tri.length);
    const pairedDiff = median(Array.from({ length: n }, (_, i) => lib[i] - tri[i]));
    const enough = [lib, flo, tri].every((xs) => xs.length >= CALLS * 0.8);
    const modes = [...new Set(results.library.map((r) => r.iceSignaling))].join(', ');
    const notes = [
      `${CALLS} measured calls per variant after ${WARMUP_CALLS} discarded warm-up calls each, rotating library/floor/floor-trickle; ${PAUSE_MS} ms pause between calls; no ICE servers (host candidates, mDNS-obfuscated by Chromium)`,
      `all end when channel open + remote audio track + session.ready, and getStats() shows outbound-rtp audio packetsSent > 0 (the emulator sends RTP only while speaking, so inbound packets cannot mark connected)`,
      `library ICE signaling: ${modes} (the emulator answers with all its candidates at once: host-only gathering on loopback takes a few ms, so it does not trickle its own)`,
      `phases (median): library connected at ${fmtMs(median(results.library.map((r) => r.connected)))}; floor (waits for gathering) connected at ${fmtMs(median(results.floor.map((r) => r.connected)))} (mic ${fmtMs(median(results.floor.map((r) => r.mic)))}, offer+ICE gathering ${fmtMs(median(results.floor.map((r) => r.offer)))}, signaling ${fmtMs(median(results.floor.map((r) => r.signaling)))}); trickling floor connected at ${fmtMs(median(results['floor-trickle'].map((r) => r.connected)))} (offer ${fmtMs(median(results['floor-trickle'].map((r) => r.offer)))}, signaling ${fmtMs(median(results['floor-trickle'].map((r) => r.signaling)))})`,
    ];
    if (failures.length) notes.push(`${failures.length} failed call(s): ${failures.slice(0, 3).map((f) => `${f.kind}#${f.i}: ${f.error}`).join('; ')}`);
    if (pageErrors.length) notes.push(`page errors: ${pageErrors.slice(0, 3).join(' | ')}`);
    return {
      name: 'time-to-connected',
      title: '1. Time to connected (Chromium, click -> audio both ways)',
      ok: enough,
      ...(enough ? {} : { error: `too few successful calls (library ${lib.length}, floor ${flo.length}, trickling floor ${tri.length} of ${CALLS})` }),
      figures: [
        { label: 'VoiceSession (trickle ICE) vs bare RTCPeerConnection waiting for gathering (median)', value: `${vsGather.toFixed(2)}x (${fmtMs(mLib)} vs ${fmtMs(mFloor)})`, target: '<= 0.6x', met: enough ? vsGather <= 0.6 : false },
        { label: 'VoiceSession (trickle ICE) vs bare RTCPeerConnection trickling the same way (median)', value: `${vsTrickle.toFixed(2)}x (${fmtMs(mLib)} vs ${fmtMs(mTrickle)}; paired median diff ${fmtMs(pairedDiff)})`, target: '<= 1.05x', met: enough ? vsTrickle <= 1.05 : false },
      ],
      details: {
        browser: browserVersion,
        library: summarize(lib), floor: summarize(flo), floorTrickle: summarize(tri),
        vsGather: round(vsGather, 4), vsTrickle: round(vsTrickle, 4), pairedMedianDiffMs: round(pairedDiff, 2),
        calls: results, failures,
      },
      notes,
    };
  } finally {
    await browser.close().catch(() => {});
    site.close();
    await emulator.close().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBenchmark('time-to-connected', '1. Time to connected', main);
}
