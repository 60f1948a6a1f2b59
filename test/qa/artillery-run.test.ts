// The shipped example (qa/examples/artillery/voice-load.yml) run by Artillery itself against a real
// emulator and relay on loopback: its `smoke` environment (4 Node calls), then the same scenario with
// an `ensure` threshold no run can meet, which must fail the run. Artillery is a devDependency of this
// repository, pinned to 2.0.21 (the last release whose manifest allows Node 20; 2.0.22+ ask for 22.13); its dependency
// @playwright/browser-chromium would download a browser from an install script, which the project's
// .npmrc (ignore-scripts) never runs: the Playwright engine gets the machine's Chromium. It runs the
// BUILT kb-voice-qa (npm test builds first). $KB_VOICE_QA_ARTILLERY may name another Artillery bin.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import { startLoadStack, type LoadStack } from './helpers/load-stack.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = path.join(root, 'qa', 'examples', 'artillery');

function findArtillery(): string | null {
  const fromEnv = process.env.KB_VOICE_QA_ARTILLERY;
  if (fromEnv) return fromEnv;
  try {
    const pkg = createRequire(import.meta.url).resolve('artillery/package.json');
    return path.join(path.dirname(pkg), 'bin', 'run');
  } catch {
    return null;
  }
}
const artillery = findArtillery();
const chromium = chromiumLaunchOptions().executablePath as string | undefined;
const built = existsSync(path.join(root, 'qa', 'dist', 'load', 'index.js'));
// Missing pieces fail the run (a devDependency and the build are always there under npm test).
const missing = !artillery ? 'artillery does not resolve: run npm install (it is a devDependency)' : !built ? 'qa/dist is not built: npm run build' : null;

let stack: LoadStack;
let dir: string;

beforeAll(async () => {
  if (missing) throw new Error(missing);
  stack = await startLoadStack({ agentBuildMs: 200, dirPrefix: 'kb-voice-qa-artillery-' });
  dir = stack.dir;
}, 30_000);

afterAll(async () => {
  await stack?.close();
});

/** Runs `artillery run [-e smoke] <script> --output <out>`; resolves with its exit code and output. */
function run(script: string, out: string, environment: string | null = 'smoke'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [artillery!, 'run', ...(environment ? ['-e', environment] : []), script, '--output', out], {
      cwd: example,
      env: {
        ...process.env,
        KB_VOICE_RELAY_URL: stack.target,
        KB_VOICE_EMULATOR_URL: stack.emu.url,
        KB_VOICE_QA_CALLS: path.join(dir, `${path.basename(out, '.json')}.calls.jsonl`),
        ARTILLERY_DISABLE_TELEMETRY: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the shipped Artillery example', () => {
  it('runs 4 Node calls with every voice.* metric in the JSON report and its ensure checks passing', async () => {
    const out = path.join(dir, 'smoke.json');
    const { code, output } = await run(path.join(example, 'voice-load.yml'), out);
    expect(code, output).toBe(0);
    const { aggregate } = JSON.parse(readFileSync(out, 'utf8')) as { aggregate: { counters: Record<string, number>; summaries: Record<string, { p95: number }> } };
    for (const name of ['voice.connect_ms', 'voice.first_response_ms', 'voice.perceived_latency_ms', 'voice.mos', 'voice.generator_cpu_pct']) {
      expect(aggregate.summaries[name], name).toBeDefined();
    }
    expect(aggregate.counters['voice.turns']).toBe(8);
    expect(aggregate.counters['voice.turns_failed']).toBe(0);
    expect(aggregate.counters['voice.answers_cut']).toBe(0);
    expect(aggregate.counters['vusers.failed']).toBe(0);
    expect(output).toMatch(/ok: voice\.first_response_ms\.p95 < 3000/);
  }, 120_000);

  it('fails the run when an ensure threshold is violated', async () => {
    const yml = readFileSync(path.join(example, 'voice-load.yml'), 'utf8')
      .replace('processor: ./processor.mjs', `processor: ${JSON.stringify(path.join(example, 'processor.mjs'))}`)
      .replace('voice.first_response_ms.p95: 3000', 'voice.first_response_ms.p95: 1');
    expect(yml).toContain('voice.first_response_ms.p95: 1');
    const script = path.join(dir, 'violated.yml');
    writeFileSync(script, yml);
    const { code, output } = await run(script, path.join(dir, 'violated.json'));
    expect(output).toMatch(/fail: voice\.first_response_ms\.p95 < 1/);
    expect(code).not.toBe(0);
  }, 120_000);

  it.skipIf(!chromium)('runs the browser scenario on Artillery\'s Playwright engine (3 Chromium pages)', async () => {
    // The machine's Chromium (Artillery's own browser download is not reachable here).
    const yml = readFileSync(path.join(example, 'browser-load.yml'), 'utf8')
      .replace('processor: ./browser-processor.mjs', `processor: ${JSON.stringify(path.join(example, 'browser-processor.mjs'))}`)
      .replace('      launchOptions:\n', `      launchOptions:\n        executablePath: ${JSON.stringify(chromium)}\n`);
    expect(yml).toContain('executablePath');
    const script = path.join(dir, 'browser.yml');
    writeFileSync(script, yml);
    const out = path.join(dir, 'browser.json');
    const { code, output } = await run(script, out, null);
    expect(code, output).toBe(0);
    const { aggregate } = JSON.parse(readFileSync(out, 'utf8')) as { aggregate: { counters: Record<string, number>; summaries: Record<string, unknown> } };
    expect(aggregate.counters['voice.turns']).toBe(3);
    expect(aggregate.counters['vusers.failed']).toBe(0);
    expect(aggregate.summaries['voice.first_response_ms']).toBeDefined();
  }, 180_000);
});
