// `kb-voice-qa`'s command: every usage error exits with 2 (kb-voice/cli's USAGE_EXIT_CODE), as
// `kb-voice relay` and `kb-voice-emulator` do; an unknown flag used to escape parseArgs and exit 1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'qa/src/cli.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // 'close': the process ended and its pipes are drained.
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

describe('kb-voice-qa command', () => {
  it('exits 2 with the usage on stderr for every usage error', async () => {
    const cases = [['report', 'run.json', '--bogus'], [], ['serve'], ['report'], ['report', 'a.json', 'b.json'], ['report', 'run.json', '--worst', 'ten']];
    const results = await Promise.all(cases.map(run));
    for (const [i, r] of results.entries()) {
      expect(r.code, cases[i]!.join(' ')).toBe(2);
      expect(r.err, cases[i]!.join(' ')).toMatch(/^kb-voice-qa: .+\n\nUsage: kb-voice-qa report/);
      expect(r.out).toBe('');
    }
  });

  it('prints the usage on --help and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: kb-voice-qa report/);
  });
});
