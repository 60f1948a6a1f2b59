import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { requireDist } from './built-dist.js';

// scripts/doc-test.mjs (the doc-test step of npm test) on fixture documents: every README block
// must be run, type-checked or skipped with a reason, against the BUILT packages, and a broken
// example must fail the step, whatever way it is broken.

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/doc-test/${name}`, import.meta.url));

interface Report { passed: number; failed: number; skipped: number; blocks: Array<{ at: string; mode: string; ok: boolean; message?: string }> }

/** Runs the doc-test on a fixture; async, so that both fixtures' tsc and run blocks overlap. */
async function docTest(name: string, ...flags: string[]): Promise<{ status: number | null; output: string; report: Report }> {
  const work = `test-results/doc-test-fixture-${name.replace(/\W/g, '-')}`;
  const child = spawn(process.execPath, ['scripts/doc-test.mjs', '--work', work, ...flags, fixture(name)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b));
  child.stderr.on('data', (b: Buffer) => (output += b));
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const report = JSON.parse(readFileSync(`${root}/${work}/report.json`, 'utf8')) as Report;
  return { status, output, report };
}

describe.concurrent('doc-test', () => {
  it('passes a document whose blocks type-check against the built package and run to exit 0', async ({ expect }) => {
    requireDist('index.d.ts', 'api/index.js');
    const { status, output, report } = await docTest('good.md');
    expect(status, output).toBe(0);
    expect(report).toMatchObject({ passed: 3, failed: 0, skipped: 1 });
    expect(report.blocks.map((b) => [b.at.replace(/^.*good\.md/, 'good.md'), b.mode, b.ok])).toEqual([
      ['good.md:3', 'skip', true],
      ['good.md:8', 'check', true],
      ['good.md:15', 'run', true],
      ['good.md:27', 'check', true], // tsx
    ]);
  }, 150_000);

  it('fails on each broken block and says where and why', async ({ expect }) => {
    requireDist('index.d.ts');
    const { status, output, report } = await docTest('broken.md', '--timeout-ms', '4000');
    expect(status, output).toBe(1);
    expect(report).toMatchObject({ passed: 0, failed: 7, skipped: 0 });
    const why = Object.fromEntries(report.blocks.map((b) => [b.at.replace(/^.*broken\.md:/, ''), b.message ?? '']));
    expect(why['5']).toMatch(/broken\.md:7: error TS2322/); // the line of the bad call, in the document
    expect(why['12']).toMatch(/exit code 1[\s\S]*broken example/);
    expect(why['18']).toMatch(/did not exit within 4 s/);
    expect(why['24']).toMatch(/killed by SIGSEGV/);
    expect(why['30']).toMatch(/no mode/);
    expect(why['36']).toMatch(/skip needs a reason/);
    expect(why['42']).toMatch(/only TypeScript\/JavaScript blocks can run/);
  }, 150_000);
});
