// Shared plumbing for the benchmark scripts: where things are, how a result is emitted, how a
// child process is run with a deadline, and what machine we are on.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const root = path.resolve(benchDir, '..');
export const distDir = path.join(root, 'dist');

export const log = (...args) => console.error('[bench]', ...args);

/**
 * A benchmark's result. Every figure is a ratio or a side-by-side comparison measured in the
 * same run; `met` is true/false against `target`, or null when the figure has no target or
 * could not be measured.
 * @typedef {{ label: string, value: string, target?: string, met?: boolean | null }} Figure
 * @typedef {{ name: string, title: string, ok: boolean, figures: Figure[], details?: object,
 *   notes?: string[], error?: string, durationMs?: number }} BenchResult
 */

/**
 * Prints the result (a small table on stdout) and, when run by bench/run.mjs, writes it as JSON
 * to the file named by BENCH_RESULT_FILE.
 * @param {BenchResult} result
 */
export function emitResult(result) {
  const file = process.env.BENCH_RESULT_FILE;
  if (file) writeFileSync(file, JSON.stringify(result, null, 2));
  console.log(`\n${result.title}${result.ok ? '' : '  (FAILED: ' + (result.error ?? 'see notes') + ')'}`);
  for (const f of result.figures) {
    const verdict = f.met === true ? 'met' : f.met === false ? 'MISSED' : '';
    console.log(`  ${f.label}: ${f.value}${f.target ? `   [target ${f.target}: ${verdict || 'n/a'}]` : ''}`);
  }
  for (const n of result.notes ?? []) console.log(`  note: ${n}`);
}

/**
 * Runs `main` (which returns a BenchResult) and emits it; an exception becomes a failed result
 * rather than a silent crash, so the orchestrator can report it.
 */
export async function runBenchmark(name, title, main) {
  const started = performance.now();
  let result;
  try {
    result = await main();
  } catch (err) {
    log(`${name} failed:`, err);
    result = { name, title, ok: false, figures: [], error: String(err?.stack ?? err).split('\n').slice(0, 4).join(' | ') };
  }
  result.durationMs = Math.round(performance.now() - started);
  emitResult(result);
  // Lingering handles (peer connections, sockets) must not keep a finished benchmark alive.
  setTimeout(() => process.exit(result.ok ? 0 : 1), 50).unref();
  return result;
}

/** Whether dist/ is missing or older than some file in src/. */
export function distIsStale() {
  const marker = path.join(distDir, 'index.js');
  if (!existsSync(marker)) return true;
  const builtAt = statSync(marker).mtimeMs;
  const newest = (dir) => {
    let t = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }
    return t;
  };
  // The workspace packages' dist/ too: bench/ imports kb-voice-emulator and kb-voice-qa (its /load tools).
  const markers = [path.join(root, 'emulator', 'dist', 'index.js'), path.join(root, 'qa', 'dist', 'load', 'measure.js')];
  if (!markers.every((m) => existsSync(m))) return true;
  const sources = ['src', 'emulator/src', 'qa/src'].map((d) => newest(path.join(root, d)));
  return Math.max(...sources) > Math.min(builtAt, ...markers.map((m) => statSync(m).mtimeMs));
}

/** Builds the package (npm run build) when dist/ is missing or stale. */
export function ensureBuilt({ force = false } = {}) {
  // BENCH_NO_BUILD=1: measure whatever dist/ holds (e.g. while someone else is rebuilding it).
  if (process.env.BENCH_NO_BUILD === '1') return;
  if (force || distIsStale()) {
    log('building dist/ (npm run build)…');
    const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      // Another helper's half-written source can break the build; an existing dist/ is still usable.
      if (!existsSync(path.join(distDir, 'index.js')) || !existsSync(path.join(root, 'emulator', 'dist', 'index.js'))) throw new Error('npm run build failed');
      log('warning: npm run build failed; measuring the existing dist/');
    }
  }
  // Checked once per run: the processes a benchmark starts (load generators, relays) inherit this and
  // never build. A source edited while a benchmark ran had a load child start `npm run build` inside
  // its time limit ("load child failed (timeout): building dist/"), and the run measured a rebuilt dist/.
  process.env.BENCH_NO_BUILD = '1';
}

const activeGroups = new Set();

/** Ends every detached child group still running (used on Ctrl-C by the orchestrator). */
export function killActiveChildren(signal = 'SIGTERM') {
  for (const pid of activeGroups) {
    try { process.kill(-pid, signal); } catch { /* already gone */ }
  }
}

/**
 * Spawns a child with a deadline. Resolves `{ code, signal, stdout, stderr, timedOut, ms }`.
 * With `detached`, the child leads a process group of its own and the deadline ends the whole
 * group (the child and whatever it started); otherwise only the child is signalled. Either way
 * SIGTERM first, SIGKILL after 3 s.
 */
export function runChild(cmd, args, { timeoutMs, env, cwd = root, inheritStderr = false, onStdout, detached = false } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', inheritStderr ? 'inherit' : 'pipe'],
      detached,
    });
    if (detached) activeGroups.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; onStdout?.(String(d)); });
    child.stderr?.on('data', (d) => { stderr += d; });
    let timedOut = false;
    const kill = (sig) => {
      try {
        if (detached) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch { /* already gone */ }
    };
    const timer = timeoutMs ? setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 3000).unref();
    }, timeoutMs) : null;
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      activeGroups.delete(child.pid);
      resolve({ code, signal, stdout, stderr, timedOut, ms: performance.now() - started });
    });
  });
}

/** Chromium binary: CHROMIUM_PATH or Debian's /usr/bin/chromium. */
export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

export function chromiumVersion() {
  try {
    const r = spawnSync(chromiumPath(), ['--version'], { encoding: 'utf8', timeout: 10000 });
    return (r.stdout || '').trim() || null;
  } catch {
    return null;
  }
}

/** The machine the numbers were taken on. */
export function machineInfo() {
  const cpus = os.cpus();
  let pkgVersion = null;
  try { pkgVersion = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version; } catch { /* none */ }
  let commit = null;
  try { commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim() || null; } catch { /* none */ }
  return {
    os: `${os.type()} ${os.release()} (${os.platform()} ${os.arch()})`,
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    chromium: chromiumVersion(),
    date: new Date().toISOString(),
    kbVoiceVersion: pkgVersion,
    commit,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export function ensureDir(dir) {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Whether a URL is plain http on a loopback address: the only targets bench's load processes accept. */
export const isLoopbackHttp = (url) => /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])[:/]/.test(url);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rejects after `ms` with a message naming what timed out. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms); }),
  ]);
}

export const fmtPct = (x, digits = 1) => (Number.isFinite(x) ? `${(x * 100).toFixed(digits)}%` : 'n/a');
export const fmtMs = (x, digits = 1) => (Number.isFinite(x) ? `${x.toFixed(digits)} ms` : 'n/a');
