#!/usr/bin/env node
// Benchmark: sources after the answer (issue 47's "within 1 s of the answer's end"). The one-file
// widget (dist/kb-voice-widget.js, sources on) in Chromium calls the emulator through the
// `kb-voice relay` command, all on loopback: N typed questions (microphone muted), then N spoken
// ones (the fake microphone loops a spoken question, its words scripted: the emulator has no
// recognizer). Per answer, in the page (performance.now()):
//   - the answer's end: the session's `assistantSpeaking` going false for it (the emulator's
//     `output.speech_stopped`, sent when the last frame of the answer's audio left; the moment the
//     widget stops showing the assistant speaking); an answer without audio ends at its `turn`;
//   - `turn` (the finished turn: the answer's caption is final), the E17 read (resource timing),
//     `sources` (Turn.sources read);
//   - rendered: the answer's Sources toggle shown with its count in the widget's shadow DOM (a
//     MutationObserver, so the DOM change itself, before paint).
// Figure per kind: answer's end -> Sources rendered, p50/p95/max. Target <= 1000 ms.
//
//   BENCH_SOURCES_TURNS=8    questions per kind
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { chromiumPath, distDir, fmtMs, log, root, runBenchmark, withTimeout } from './lib/common.mjs';
import { loadEmulator } from './lib/kb.mjs';
import { median, percentile } from './lib/stats.mjs';
import { CHROMIUM_FLAGS } from './time-to-connected.mjs';

const TURNS = Math.max(2, Number(process.env.BENCH_SOURCES_TURNS ?? 8));
const TARGET_MS = 1000;
const SPOKEN = 'How long is the warranty?';
// Typed questions whose answers cite the dataset (a text file, the PDF manual).
const TYPED = ['How long is the warranty?', 'Can I immerse the base in water?', 'What does the red blinking ring light mean?'];
// The spoken question with silence after it, long enough for its answer: one utterance per loop.
const LOOP_SECONDS = 11;
const dist = process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : distDir;

/** test/fixtures/audio/e2e-question.wav's first seconds (the question) padded with silence to `seconds`. */
function questionLoop(seconds) {
  const wav = readFileSync(path.join(root, 'test/fixtures/audio/e2e-question.wav'));
  const dataAt = wav.indexOf('data') + 8;
  const rate = wav.readUInt32LE(24);
  const speech = wav.subarray(dataAt, dataAt + rate * 2 * 2.2); // 0.3 s lead-in + the question
  const data = Buffer.alloc(Math.round(rate * seconds) * 2);
  speech.copy(data);
  const header = Buffer.from(wav.subarray(0, 44));
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  header.writeUInt32LE(36 + data.length, 4);
  return Buffer.concat([header, data]);
}

/** `kb-voice relay` (the built command) in front of `upstream`; resolves its URL. */
function startRelayCommand(upstream, apiKey) {
  const child = spawn(process.execPath, [path.join(dist, 'cli/main.js'), 'relay', '--upstream', upstream, '--port', '0'], {
    env: { ...process.env, KB_VOICE_API_KEY: apiKey }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`kb-voice relay exited ${code}: ${stderr.slice(0, 400)}`)));
  });
  return { url: withTimeout(url, 20_000, 'kb-voice relay start'), close: () => child.kill('SIGTERM') };
}

/** In the page: per finished turn, the moments its answer ended, its turn, its E17 read, its sources and their rendering. */
function instrument() {
  const w = window;
  w.sourceRuns = [];
  const el = document.querySelector('kb-voice-widget');
  let speechEnd;
  let lastTurnAt = 0;
  const reads = new Map();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const m = /session\.messages\/([0-9a-f-]+)/.exec(e.name);
      if (!m) continue;
      // Every E17 of the message (a retry would show as a second one), with its stages.
      const all = reads.get(m[1]) ?? [];
      all.push({ start: e.startTime, end: e.responseEnd, connect: e.connectEnd - e.connectStart, request: e.requestStart - e.startTime, waiting: e.responseStart - e.requestStart, status: e.responseStatus });
      reads.set(m[1], all);
    }
  }).observe({ type: 'resource', buffered: true });
  const rendered = (run) => {
    const toggle = el.shadowRoot.querySelector(`[data-testid="sources"][data-turn="${run.id}"] [part~="sources-toggle"]`);
    return toggle && !toggle.hidden && Number(toggle.dataset.count) > 0;
  };
  new MutationObserver(() => {
    const now = performance.now();
    for (const run of w.sourceRuns) if (run.rendered === undefined && rendered(run)) run.rendered = now;
  }).observe(el.shadowRoot, { subtree: true, childList: true, attributes: true, characterData: true });
  el.addEventListener('session', (event) => {
    const session = event.detail;
    session.on('assistantSpeaking', (speaking) => {
      if (!speaking) speechEnd = performance.now();
    });
    session.on('turn', (turn) => {
      const now = performance.now();
      // The answer's end: its speech stopping since the previous turn finished (none: it had no audio).
      const ended = speechEnd !== undefined && speechEnd > lastTurnAt ? speechEnd : now;
      lastTurnAt = now;
      w.sourceRuns.push({ id: turn.id, messageId: turn.messageId, input: turn.input, scripted: turn.scripted === true, interrupted: turn.interrupted, ended, turn: now });
    });
    session.on('sources', (id, sources) => {
      const run = [...w.sourceRuns].reverse().find((r) => r.id === id && r.sources === undefined);
      if (run) Object.assign(run, { sources: performance.now(), count: sources.filter((s) => s.title).length });
    });
  });
  w.readOf = (messageId) => {
    const all = reads.get(messageId);
    return all && { start: all[0].start, end: all.at(-1).end, all };
  };
}

await runBenchmark('sources-latency', 'Sources after the answer (Chromium widget, kb-voice relay, loopback)', async () => {
  const { chromium } = await import('playwright-core');
  const loadAtStart = os.loadavg();
  const { startEmulator } = await loadEmulator();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kbv-sources-'));
  const micFile = path.join(tmp, 'question-loop.wav');
  writeFileSync(micFile, questionLoop(LOOP_SECONDS));
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: 0, realtime: { voice: 'builtin' } });
  const relay = startRelayCommand(emulator.url, emulator.apiKey);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_FLAGS, `--use-file-for-fake-audio-capture=${micFile}`] });
  try {
    const origin = await relay.url;
    const page = await browser.newPage();
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    const html = readFileSync(path.join(root, 'test/fixtures/widget/plain.html'), 'utf8').replace('{{AI_ID}}', emulator.fixtures.robotId);
    const widgetJs = readFileSync(path.join(dist, 'kb-voice-widget.js'));
    // The page and the widget's one file from the relay's origin (relay-url="/api/voice": same origin, as a site serves it).
    await page.route(`${origin}/static/**`, (route) => {
      const file = new URL(route.request().url()).pathname;
      if (file === '/static/index.html') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
      if (file === '/static/kb-voice-widget.js') return route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: widgetJs });
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await page.goto(`${origin}/static/index.html`);
    await page.waitForFunction(() => document.querySelector('kb-voice-widget')?.shadowRoot?.querySelector('[data-testid="call-start"]'));
    await page.evaluate(instrument);
    const shadow = (testId) => page.locator(`kb-voice-widget [data-testid="${testId}"]`);
    const runs = () => page.evaluate(() => window.sourceRuns);
    // Counted answers: typed ones, and spoken ones answered whole as the scripted words.
    const waitRendered = (input, count, what) => page.waitForFunction(
      ([kind, n]) => window.sourceRuns.filter((r) => r.input === kind && (kind === 'text' || (r.scripted && !r.interrupted)) && r.rendered !== undefined).length >= n,
      [input, count], { timeout: 60_000 + 20_000 * count, polling: 200 },
    ).catch((e) => { throw new Error(`${what}: ${e.message.split('\n')[0]}`); });

    // Typed questions first, the microphone muted (the call starts muted).
    await shadow('mute-toggle').click();
    await shadow('call-start').click();
    await page.waitForFunction(() => document.querySelector('kb-voice-widget').shadowRoot.querySelector('[data-testid="call-status"]').dataset.status === 'connected', null, { timeout: 30_000 });
    const browserVersion = browser.version();
    for (let i = 0; i < TURNS; i++) {
      await shadow('text-input').fill(TYPED[i % TYPED.length]);
      await shadow('text-send').click();
      await waitRendered('text', i + 1, `typed answer ${i + 1}`);
      log(`sources-latency: typed ${i + 1}/${TURNS}`);
    }
    // Then spoken ones: the looping question, its words scripted for this session.
    const sessionId = await page.evaluate(() => document.querySelector('kb-voice-widget').session.sessionId);
    const scripted = await fetch(`${emulator.url}/_emulator/script`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: sessionId, utterances: Array(TURNS + 2).fill(SPOKEN) }),
    });
    if (!scripted.ok) throw new Error(`PUT /_emulator/script: ${scripted.status}`);
    await shadow('mute-toggle').click();
    for (let i = 0; i < TURNS; i++) {
      await waitRendered('voice', i + 1, `spoken answer ${i + 1}`);
      log(`sources-latency: spoken ${i + 1}/${TURNS}`);
    }
    await shadow('mute-toggle').click();
    const all = await runs();
    for (const r of all) r.read = await page.evaluate((id) => window.readOf(id), r.messageId);
    await shadow('call-end').click().catch(() => {});

    const figures = [];
    const details = { browser: browserVersion, turns: TURNS, runs: all };
    const notes = [
      `${TURNS} typed then ${TURNS} spoken questions in one call (the widget's one-file build, sources on; emulator voice builtin, agent build 0 ms; the relay is the \`kb-voice relay\` command in its own process); the spoken question loops every ${LOOP_SECONDS} s on Chromium's fake microphone; interrupted answers and unscripted utterances are not counted`,
      "answer's end: the session's assistantSpeaking going false for the answer (output.speech_stopped); rendered: its Sources toggle shown with a count in the shadow DOM (MutationObserver)",
    ];
    for (const [kind, pick] of [['typed', (r) => r.input === 'text'], ['spoken', (r) => r.input === 'voice' && r.scripted && !r.interrupted]]) {
      const rs = all.filter((r) => pick(r) && r.rendered !== undefined).slice(0, TURNS);
      const total = rs.map((r) => r.rendered - r.ended);
      const part = (f) => rs.map(f).filter(Number.isFinite);
      const phases = {
        endToTurn: part((r) => r.turn - r.ended),
        // The reader asks E17 in the `turn` event, before the page's own listener notes the time: 0.
        turnToRead: part((r) => (r.read ? Math.max(0, r.read.start - r.turn) : NaN)),
        read: part((r) => (r.read ? r.read.end - r.read.start : NaN)),
        readToSources: part((r) => (r.read ? r.sources - r.read.end : NaN)),
        sourcesToRendered: part((r) => r.rendered - r.sources),
      };
      const p95 = percentile(total, 95);
      const max = Math.max(...total);
      details[kind] = { totalMs: total, phases };
      figures.push({
        label: `${kind}: answer's end -> Sources rendered, p50 / p95 / max (n=${rs.length})`,
        value: `${fmtMs(median(total))} / ${fmtMs(p95)} / ${fmtMs(max)}`,
        target: `<= ${TARGET_MS} ms`,
        met: rs.length === TURNS && max <= TARGET_MS,
      });
      const fmtPhases = (p) => Object.values(phases).map((xs) => fmtMs(percentile(xs, p))).join(' · ');
      figures.push({
        label: `${kind}: where it goes, p50 (p95): answer's end -> turn · turn -> E17 sent · E17 round trip · -> sources event · -> rendered`,
        value: `${fmtPhases(50)} (${fmtPhases(95)})`,
      });
      // A read that failed (too early, a blip) shows as a second E17 after SOURCES_RETRY_MS.
      const retried = rs.filter((r) => (r.read?.all.length ?? 0) > 1).length;
      figures.push({ label: `${kind}: answers whose sources took more than one E17 (the reader's retry)`, value: `${retried} of ${rs.length}` });
    }
    if (pageErrors.length) notes.push(`page errors: ${pageErrors.slice(0, 3).join(' | ')}`);
    const loads = (l) => l.map((x) => x.toFixed(2)).join(' / ');
    notes.push(`load average ${loads(loadAtStart)} at the start, ${loads(os.loadavg())} at the end (2 cores, shared with other work)`);
    return { name: 'sources-latency', title: 'Sources after the answer (Chromium widget, kb-voice relay, loopback)', ok: true, figures, details, notes };
  } finally {
    await browser.close().catch(() => {});
    relay.close();
    await emulator.close().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
});
