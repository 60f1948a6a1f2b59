import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from 'kb-voice-qa';

// The reporter over a suite spread over two machines: qa/test/fixtures/sharded runs as
// --shard=1/2 and --shard=2/2 (blob reports), then `playwright merge-reports` with
// kb-voice-qa/reporter builds summary.json and index.html from the blobs' attachments alone.
const here = path.dirname(fileURLToPath(import.meta.url));
const suite = path.join(here, 'fixtures', 'sharded');
const cli = path.resolve(here, '../../node_modules/@playwright/test/cli.js');

function playwright(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: suite, env: { ...process.env, ...env, CI: '' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

// voice: { emulator: { agentBuildMs: 300 }, language: 'en' } for the whole project (playwright.config.ts).

test('two shards merged: summary.json and index.html over both', async ({ page, voiceCall }, testInfo) => {
  test.setTimeout(240_000);
  const work = await mkdtemp(path.join(tmpdir(), 'kb-voice-qa-shards-'));
  // The shards call this worker's emulator (through its relay) instead of starting their own.
  const env = { KB_VOICE_QA_WORK: work, KB_VOICE_QA_RELAY: voiceCall.relayUrl, KB_VOICE_QA_ROBOT: voiceCall.aiId, KB_VOICE_QA_EMULATOR: voiceCall.emulatorUrl! };
  const all = path.join(work, 'all-blob-reports');
  await mkdir(all);
  for (const shard of [1, 2]) {
    const blobs = path.join(work, `blob-${shard}`);
    const run = await playwright(['test', '--config', 'playwright.config.ts', `--shard=${shard}/2`], { ...env, KB_VOICE_QA_BLOB_DIR: blobs });
    expect(run.code, `shard ${shard}/2:\n${run.output}`).toBe(0);
    // What a CI job does: download every shard's blob-report artifact into one folder.
    for (const file of await readdir(blobs)) await copyFile(path.join(blobs, file), path.join(all, file));
  }
  expect((await readdir(all)).sort()).toEqual(['report-1.zip', 'report-2.zip']);
  const merged = await playwright(['merge-reports', '--config', 'merge.config.ts', all], env);
  expect(merged.code, merged.output).toBe(0);

  const out = path.join(work, 'voice-report');
  const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8'));
  expect(summary.calls).toHaveLength(2);
  expect(summary.calls.map((c: { test: string }) => c.test).sort()).toEqual([
    'calls.spec.ts › filters, typed (expected to fail: the answer is not about a flux capacitor)',
    'calls.spec.ts › warranty',
  ]);
  const warranty = summary.calls.find((c: { test: string }) => c.test.endsWith('warranty'));
  expect(warranty).toMatchObject({ status: 'passed', turns: 1 });
  expect(warranty.report.turns[0].answer).toMatch(/warrant/i);
  expect(summary.calls.find((c: { test: string }) => c.test.includes('typed')).status).toBe('failed');
  expect(summary.overall).toMatchObject({ calls: 2, turns: 2 });
  for (const p of ['p50', 'p95', 'p99']) expect(typeof summary.overall.firstResponseMs[p]).toBe('number');
  expect(Object.keys(summary.overall.perceivedLatencyMs).sort()).toEqual(['p50', 'p95', 'p99']);

  const html = await readFile(path.join(out, 'index.html'), 'utf8');
  expect(html).toContain('flux capacitor');
  await page.goto(pathToFileURL(path.join(out, 'index.html')).href);
  await expect(page.getByRole('heading', { name: 'Voice QA' })).toBeVisible();
  await expect(page.locator('article.test')).toHaveCount(2);
  await expect(page.locator('article.passed audio')).not.toHaveCount(0);
  // Players say what they hold and load their length with the page; each call names its network and date.
  await expect(page.locator('article.passed figcaption').first()).toHaveText(/^turn 1 · (question|answer) · \d+\.\d s$/);
  await expect(page.locator('article.passed audio').first()).toHaveAttribute('preload', 'metadata');
  await expect(page.locator('article.passed .callhead')).toContainText('network unshaped');
  await expect(page.locator('article.passed .callhead')).toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  await expect(page.locator('header.top')).toContainText(/Node v\d+/);
  const src = await page.locator('article.passed audio').first().getAttribute('src');
  expect((await readFile(path.join(out, src!))).subarray(0, 4).toString()).toBe('RIFF');
  await testInfo.attach('voice-report.png', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  await page.screenshot({ path: testInfo.outputPath('voice-report.png'), fullPage: true });
});
