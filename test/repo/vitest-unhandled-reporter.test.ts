// scripts/vitest-unhandled-reporter.mjs: an error Vitest caught outside a test (after the test ended,
// or a worker that died) fails the run but is not in Vitest's JSON report, so `npm test`'s summary
// said "1 failed" and named nothing (CI of 7f3fdf0). The reporter keeps each such error, with the file
// and latest test Vitest's worker tagged it with, for the summary to name.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, no types
import UnhandledErrorsReporter from '../../scripts/vitest-unhandled-reporter.mjs';

const dirs: string[] = [];
const saved = process.env.KB_VOICE_UNHANDLED_FILE;

afterEach(() => {
  if (saved === undefined) delete process.env.KB_VOICE_UNHANDLED_FILE;
  else process.env.KB_VOICE_UNHANDLED_FILE = saved;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function outputFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kb-voice-unhandled-'));
  dirs.push(dir);
  return path.join(dir, 'nested', 'unhandled.json');
}

describe('the unhandled-errors reporter', () => {
  it('writes each error with its kind, file, latest test and cause', () => {
    const file = outputFile();
    process.env.KB_VOICE_UNHANDLED_FILE = file;
    const late = Object.assign(new Error('late boom'), {
      type: 'Unhandled Rejection',
      VITEST_TEST_PATH: path.join(process.cwd(), 'test', 'x.test.ts'),
      VITEST_TEST_NAME: 'waits',
    });
    const crash = Object.assign(new Error('[vitest-pool]: Worker forks emitted error.', { cause: new Error('Worker exited unexpectedly') }), { type: 'Unhandled Error' });
    new UnhandledErrorsReporter().onTestRunEnd([], [late, 'a thrown string', crash]);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written).toHaveLength(3);
    expect(written[0]).toMatchObject({
      file: path.join('test', 'x.test.ts'), test: 'waits', type: 'Unhandled Rejection', name: 'Error', message: 'late boom',
    });
    expect(written[0].stack).toContain('late boom');
    expect(written[1]).toEqual({ message: 'a thrown string' });
    // a worker that died: the file is unknown, the cause says what happened
    expect(written[2]).toMatchObject({ type: 'Unhandled Error', cause: 'Worker exited unexpectedly' });
  });

  it('writes an empty list for a clean run, and nothing without a file named', () => {
    const file = outputFile();
    process.env.KB_VOICE_UNHANDLED_FILE = file;
    new UnhandledErrorsReporter().onTestRunEnd([], []);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([]);
    delete process.env.KB_VOICE_UNHANDLED_FILE;
    expect(() => new UnhandledErrorsReporter().onTestRunEnd([], [new Error('x')])).not.toThrow();
  });
});
