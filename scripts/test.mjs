#!/usr/bin/env node
// `npm test`: every suite (one command for developers and CI):
//   1. build       scripts/build.mjs (test/package, the package checks and the demo use dist/);
//                  skipped when dist/ is the build of the current sources (scripts/build-inputs.mjs)
//   then three lanes at once (each step reads dist/ and the sources, none writes what another reads):
//   lane "checks", one after another, output shown as a block when each step ends:
//   2. typecheck   tsc over src + test + configs, and over demo/ (its own tsconfig)
//   3. conflict markers  scripts/check-conflict-markers.mjs: no merge-conflict marker in a tracked file
//      import cycles     scripts/check-import-cycles.mjs: no loop of imports (type-only included) in
//                        src/, emulator/src, qa/src
//   4. doc-test    scripts/doc-test.mjs: every code block of every documentation page (README.md,
//                  docs/*.md, each top-level folder's README.md) run, type-checked or skipped with a reason
//   5. doc links   scripts/check-doc-links.mjs: every relative link of those pages reaches a file and heading
//   6. package     scripts/check-package.mjs (pack, publint, attw, browser bundles, size budget)
//   lane "apps", output as a block when it ends:
//      apps install  test/apps/matrix/install.mjs: the three packages packed, the app matrix installed from
//                    its lockfile (skipped when neither changed)
//   lane "vitest", output live:
//   7. vitest      unit + integration tests, test/**/*.test.ts except test/e2e
//   and when the lanes are done, one after another:
//   8. firefox     test/firefox in Debian's firefox-esr over WebDriver BiDi (puppeteer-core,
//                  vitest.firefox.config.ts; the suite starts its own PulseAudio); skipped, saying so,
//                  where there is no Firefox (scripts/firefox.mjs)
//   9. e2e         Playwright in Chromium (see scripts/chromium.mjs): test/e2e, and kb-voice-qa's own suite
//                  (qa/test, project kb-voice-qa: harness calls, an app page attached, failure messages,
//                  two shards merged through its reporter), and the app matrix (test/apps, project apps:
//                  Vite dev and build, webpack 5, Next.js, a plain page, under a strict CSP)
// Why lanes: Vitest keeps a 2-core machine about two-thirds busy (its files wait on real peers and
// real sockets), and the checks (tsc, npm pack, a fresh install) fit in the rest, as does the app
// matrix's install (network and disk): one lane's wall time instead of three (docs/contributing.md,
// "How long npm test takes"). Firefox and e2e run alone: their calls are real time and their audio
// must not starve. Firefox ran beside Vitest until 2026-11-29: there, twice in two runs (CI and a
// local repeat), Firefox stopped answering WebDriver BiDi during the widget's call (a page script,
// then even opening a tab, timed out after 120 s), while beside four busy loops, or alone, it passed
// every time.
// A failed build stops the run (nothing after it is meaningful); any other failed step is
// reported and the remaining steps still run, so one run shows every problem. Ends with
// "total: N passed, N failed" counting tests and checks, and exits non-zero if anything failed.
// Extra arguments are passed to vitest, e.g. `npm test -- test/api` (then steps 4–6, 8, 9 and the apps install are skipped).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-inputs.mjs';
import { findChromium, NO_CHROMIUM_MESSAGE } from './chromium.mjs';
import { findFirefox, NO_FIREFOX_MESSAGE } from './firefox.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const results = path.join(root, 'test-results');
const vitestFilter = process.argv.slice(2);
// Vitest's JSON report leaves out errors caught outside a test; this reporter keeps them for the summary.
const UNHANDLED_REPORTER = path.join(root, 'scripts', 'vitest-unhandled-reporter.mjs');

/** @type {{ step: string, ok: boolean, passed: number, failed: number, skipped: number, seconds: number, note?: string }[]} */
const steps = [];

function run(step, command, args, count) {
  console.log(`\n=== ${step}: ${[path.basename(command), ...args].join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  return record(step, result.status === 0, count, started);
}

/**
 * Like run(), without blocking: the step's output is kept and printed as one block when it ends,
 * so two lanes' logs never interleave line by line. Resolves with whether the step passed.
 */
function runCaptured(step, command, args, count, env = process.env) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const done = (status, error) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n=== ${step}: ${[path.basename(command), ...args].join(' ')}  (${seconds} s)\n`);
      process.stdout.write(Buffer.concat(output));
      if (error) console.log(`${step}: could not run: ${error.message}`);
      resolve(record(step, status === 0, count, started));
    };
    child.once('error', (error) => done(null, error));
    child.once('close', (status) => done(status));
  });
}

/** Lives in a lane (with spawnSync the vitest lane would block the checks lane). */
function runLive(step, command, args, count, env = process.env) {
  console.log(`\n=== ${step}: ${[path.basename(command), ...args].join(' ')}  (output live; the checks lane prints when each of its steps ends)`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
    child.once('error', () => resolve(record(step, false, count, started)));
    child.once('close', (status) => resolve(record(step, status === 0, count, started)));
  });
}

function record(step, ok, count, started) {
  const counts = count?.() ?? { passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 };
  // A runner that crashed before reporting has counted nothing: count the step itself.
  if (!ok && counts.failed === 0) counts.failed = 1;
  steps.push({ step, ok, ...counts, seconds: (Date.now() - started) / 1000 });
  return ok;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function vitestCounts(file = 'vitest.json', unhandledFile = 'vitest-unhandled.json') {
  const report = readJson(path.join(results, file));
  if (!report) return undefined;
  // Each error caught outside a test failed the run: counted as a failure of its own.
  const unhandled = readJson(path.join(results, unhandledFile))?.length ?? 0;
  // As for Playwright: a test that passed on its CI retry passed, and the summary names the count.
  const flaky = retriedVitestTests(file).length;
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0) + unhandled,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    ...(flaky ? { note: `${flaky} flaky (passed on retry)` } : {}),
  };
}

function packageCounts() {
  const report = readJson(path.join(results, 'package-checks.json'));
  return report ? { passed: report.passed, failed: report.failed, skipped: 0 } : undefined;
}

function docTestCounts() {
  const report = readJson(path.join(results, 'doc-test', 'report.json'));
  return report ? { passed: report.passed, failed: report.failed, skipped: report.skipped } : undefined;
}

function playwrightCounts() {
  const stats = readJson(path.join(results, 'playwright.json'))?.stats;
  if (!stats) return undefined;
  // A test that passed on its CI retry is 'flaky': it passed, but the summary names the count, since
  // a test that needs a retry is a defect to find (docs/contributing.md).
  const flaky = stats.flaky ?? 0;
  return {
    passed: (stats.expected ?? 0) + flaky, failed: stats.unexpected ?? 0, skipped: stats.skipped ?? 0,
    ...(flaky ? { note: `${flaky} flaky (passed on retry)` } : {}),
  };
}

/**
 * The first line of a failure message, without terminal colours, at most 300 characters; a bare
 * heading ("Error:", whose text starts on the next line, as a child run's output does) takes the next line.
 */
const firstLine = (message) => {
  const lines = String(message ?? '').replace(/\u001b\[[0-9;]*m/g, '').trim().split('\n').map((l) => l.trim()).filter(Boolean);
  const head = /^[\w.]*Error:$/.test(lines[0] ?? '') && lines[1] ? `${lines[0]} ${lines[1]}` : lines[0] ?? '';
  return head.slice(0, 300);
};

/** `file › test: message` of each failed vitest test, and of each file that failed without a test (a crash, an import error). */
function failedVitestTests(file = 'vitest.json', label = 'vitest') {
  const report = readJson(path.join(results, file));
  const lines = [];
  for (const result of report?.testResults ?? []) {
    const name = path.relative(root, result.name);
    const failed = (result.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failed) lines.push(`${label} ${name} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
    // 'pending' is a test that started or was queued and never ended: its worker died (a native
    // crash) or the run was cut; the error itself is among the unhandled ones.
    for (const a of result.assertionResults ?? []) if (a.status === 'pending') lines.push(`${label} ${name} › ${a.fullName}: never finished`);
    if (result.status === 'failed' && failed.length === 0) lines.push(`${label} ${name}: ${firstLine(result.message)}`);
  }
  return lines;
}

/**
 * `file › test: message` of each Vitest test that passed on a retry (the Firefox suite retries once
 * in CI): Vitest keeps the failed attempts' errors on a test that then passed.
 */
function retriedVitestTests(file, label = 'vitest') {
  const report = readJson(path.join(results, file));
  const lines = [];
  for (const result of report?.testResults ?? []) {
    const name = path.relative(root, result.name);
    for (const a of result.assertionResults ?? []) {
      if (a.status === 'passed' && a.failureMessages?.length) lines.push(`${label} ${name} › ${a.fullName}: passed on retry; first: ${firstLine(a.failureMessages[0])}`);
    }
  }
  return lines;
}

/** `file (test): type: message` of each error Vitest caught outside a test (scripts/vitest-unhandled-reporter.mjs). */
function unhandledVitestErrors(file, label) {
  const errors = readJson(path.join(results, file)) ?? [];
  return errors.map((e) => `${label} unhandled ${e.type ?? 'error'}${e.file ? ` in ${e.file}` : ''}${e.test ? ` (latest test: ${e.test})` : ''}: ${firstLine(`${e.name ? `${e.name}: ` : ''}${e.message}${e.cause ? ` (cause: ${e.cause})` : ''}`)}`);
}

/**
 * `file:line › title: message` of each Playwright test of `status`: 'unexpected' (failed) or 'flaky'
 * (passed on a retry; the message is its first failure's).
 */
function playwrightTests(status) {
  const report = readJson(path.join(results, 'playwright.json'));
  const lines = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== status) continue;
        const error = t.results?.find((r) => r.error)?.error;
        lines.push(`e2e [${t.projectName}] ${spec.file}:${spec.line} › ${spec.title}: ${status === 'flaky' ? 'passed on retry; first: ' : ''}${firstLine(error?.message)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report?.suites ?? []) walk(suite);
  if (status === 'unexpected') for (const error of report?.errors ?? []) lines.push(`e2e: ${firstLine(error.message)}`);
  return lines;
}

mkdirSync(results, { recursive: true });
for (const file of ['vitest.json', 'vitest-unhandled.json', 'vitest-firefox.json', 'vitest-firefox-unhandled.json', 'package-checks.json', 'playwright.json', 'doc-test/report.json']) rmSync(path.join(results, file), { force: true });

const started = Date.now();
// dist/ already built from these very sources (by an earlier `npm test`, `npm run demo` or build): no second build.
const built = buildIsCurrent();
if (built) {
  console.log('\n=== build: dist/ is the build of the current sources (scripts/build-inputs.mjs), not rebuilt');
  steps.push({ step: 'build', ok: true, passed: 1, failed: 0, skipped: 0, seconds: 0, note: 'up to date' });
}
if (built || run('build', process.execPath, [path.join(root, 'scripts', 'build.mjs')])) {
  const script = (name) => path.join(root, 'scripts', name);
  const full = vitestFilter.length === 0;
  const checks = (async () => {
    await runCaptured('typecheck', bin('tsc'), ['-p', 'tsconfig.json']);
    if (existsSync(path.join(root, 'demo', 'tsconfig.json'))) await runCaptured('typecheck demo', bin('tsc'), ['-p', 'demo']);
    await runCaptured('conflict markers', process.execPath, [script('check-conflict-markers.mjs')]);
    await runCaptured('import cycles', process.execPath, [script('check-import-cycles.mjs')]);
    if (!full) return;
    await runCaptured('doc-test', process.execPath, [script('doc-test.mjs')], docTestCounts);
    await runCaptured('doc links', process.execPath, [script('check-doc-links.mjs')]);
    await runCaptured('package checks', process.execPath, [script('check-package.mjs')], packageCounts);
  })();
  // Lane "apps": the app matrix's install (test/apps, e2e project `apps`; the npm registry only: the
  // packed tarballs, `npm ci` when its lockfile changed, ~100 s on a clean clone, only the three
  // packages when only they changed, ~15 s, else nothing), mostly waiting on the network and the
  // disk, so it runs beside the typecheck instead of after the package checks.
  const apps = full ? runCaptured('apps install', process.execPath, [path.join(root, 'test', 'apps', 'matrix', 'install.mjs')]) : Promise.resolve();
  const vitest = runLive(
    'vitest',
    bin('vitest'),
    ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${path.join(results, 'vitest.json')}`, `--reporter=${UNHANDLED_REPORTER}`, ...vitestFilter],
    vitestCounts,
    { ...process.env, KB_VOICE_UNHANDLED_FILE: path.join(results, 'vitest-unhandled.json') },
  );
  await Promise.all([checks, vitest, apps]);
  if (full) {
    if (findFirefox() === null) {
      console.log(`\n=== firefox\n${NO_FIREFOX_MESSAGE}`);
      steps.push({ step: 'firefox', ok: true, passed: 0, failed: 0, skipped: 1, seconds: 0, note: 'skipped: no Firefox (scripts/firefox.mjs)' });
    } else {
      await runCaptured('firefox', bin('vitest'), [
        'run', '--config', 'vitest.firefox.config.ts', '--reporter=default', '--reporter=json',
        `--outputFile.json=${path.join(results, 'vitest-firefox.json')}`, `--reporter=${UNHANDLED_REPORTER}`,
      ], () => vitestCounts('vitest-firefox.json', 'vitest-firefox-unhandled.json'), { ...process.env, KB_VOICE_UNHANDLED_FILE: path.join(results, 'vitest-firefox-unhandled.json') });
    }
    if (findChromium() === null) {
      console.log(`\n=== e2e\n${NO_CHROMIUM_MESSAGE}`);
      steps.push({ step: 'e2e', ok: false, passed: 0, failed: 1, skipped: 0, seconds: 0, note: NO_CHROMIUM_MESSAGE });
    } else {
      // --pass-with-no-tests: until test/e2e has tests, an empty folder is not a failure.
      run('e2e', bin('playwright'), ['test', '--pass-with-no-tests'], playwrightCounts);
    }
  }
}

// The lanes finish in any order: the summary lists the steps in the order above.
const ORDER = ['build', 'typecheck', 'typecheck demo', 'conflict markers', 'import cycles', 'doc-test', 'doc links', 'package checks', 'apps install', 'vitest', 'firefox', 'e2e'];
steps.sort((a, b) => ORDER.indexOf(a.step) - ORDER.indexOf(b.step));

console.log('\n=== summary');
for (const s of steps) {
  const counts = `${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ''}`;
  console.log(`${s.ok ? 'ok  ' : 'FAIL'}  ${s.step.padEnd(16)} ${counts}  (${s.seconds.toFixed(1)} s)${s.note ? `  ${s.note}` : ''}`);
}
const total = steps.reduce(
  (sum, s) => ({ passed: sum.passed + s.passed, failed: sum.failed + s.failed, skipped: sum.skipped + s.skipped }),
  { passed: 0, failed: 0, skipped: 0 },
);
const allOk = steps.every((s) => s.ok);
// CI shows only the end of the log: the failed tests are named here, not only counted.
const failures = [
  ...failedVitestTests(), ...unhandledVitestErrors('vitest-unhandled.json', 'vitest'),
  ...playwrightTests('unexpected'),
  ...failedVitestTests('vitest-firefox.json', 'firefox'), ...unhandledVitestErrors('vitest-firefox-unhandled.json', 'firefox'),
];
if (failures.length) {
  console.log(`\n=== failed tests (${failures.length})`);
  for (const line of failures.slice(0, 30)) console.log(`- ${line}`);
  if (failures.length > 30) console.log(`- … and ${failures.length - 30} more (test-results/vitest.json, test-results/playwright.json)`);
}
// Passed, but only on a retry: a defect to find (docs/contributing.md), named with its first failure.
const retried = [...retriedVitestTests('vitest.json'), ...playwrightTests('flaky'), ...retriedVitestTests('vitest-firefox.json', 'firefox')];
if (retried.length) {
  console.log(`\n=== passed on retry (${retried.length})`);
  for (const line of retried.slice(0, 30)) console.log(`- ${line}`);
}
console.log(`npm test took ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`total: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exitCode = allOk ? 0 : 1;
