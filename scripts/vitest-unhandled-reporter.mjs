// A Vitest reporter that writes the run's unhandled errors (an uncaught exception or rejection after
// a test ended, a worker that died) to a JSON file. Vitest's JSON reporter leaves them out, so a run
// whose every test passed but which failed on one of them said only "1 failed" in `npm test`'s
// summary, and CI, which shows the end of the log, could not say what failed (the CI run of 7f3fdf0).
// scripts/test.mjs names the file in KB_VOICE_UNHANDLED_FILE and prints each error in its summary.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** @param {unknown} error */
function describe(error) {
  const e = /** @type {{ cause?: unknown, name?: unknown, message?: unknown, stack?: unknown, type?: unknown, VITEST_TEST_PATH?: unknown, VITEST_TEST_NAME?: unknown }} */ (error ?? {});
  return {
    // Set by Vitest's worker: the file running when the error was caught, and its latest test
    file: typeof e.VITEST_TEST_PATH === 'string' ? path.relative(process.cwd(), e.VITEST_TEST_PATH) : undefined,
    test: typeof e.VITEST_TEST_NAME === 'string' ? e.VITEST_TEST_NAME : undefined,
    name: typeof e.name === 'string' ? e.name : undefined,
    // Vitest's own kinds, e.g. 'Unhandled Rejection', 'Uncaught Exception'
    type: typeof e.type === 'string' ? e.type : undefined,
    message: typeof e.message === 'string' ? e.message : String(error),
    // e.g. "Worker exited unexpectedly" under Vitest's "[vitest-pool]: Worker forks emitted error."
    cause: e.cause === undefined ? undefined : describe(e.cause).message,
    stack: typeof e.stack === 'string' ? e.stack : undefined,
  };
}

export default class UnhandledErrorsReporter {
  /**
   * @param {readonly unknown[]} _testModules
   * @param {readonly unknown[]} unhandledErrors
   */
  onTestRunEnd(_testModules, unhandledErrors) {
    const file = process.env.KB_VOICE_UNHANDLED_FILE;
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(unhandledErrors.map(describe), null, 2)}\n`);
  }
}
