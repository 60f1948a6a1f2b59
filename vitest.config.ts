import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Files that take longest, mostly waiting on real-time audio (10-40 s each): started first, so that
 * no long file starts near the end and runs alone. Vitest orders by the last run's durations when
 * it has them, but a fresh clone (CI) has none and would order by file size. A file missing here
 * only runs later; a name that no longer exists is ignored.
 */
const LONGEST_FIRST = [
  'test/qa/artillery-run.test.ts',
  'test/realtime/noise-barge-in.test.ts',
  'test/realtime/openai-protocol.test.ts',
  'test/realtime/flite-voice.test.ts',
  'test/client/emulator.test.ts',
  'test/client/openai.test.ts',
  'test/client/turn-options.test.ts',
  'test/realtime/voice-turn.test.ts',
  'test/realtime/http.test.ts',
  'test/faults/exit-cleanly.test.ts',
  'test/client/trickle.test.ts',
  'test/relay/openai.test.ts',
  'test/qa/load-node.test.ts',
  'test/otel/otel.test.ts',
  'test/client/timing/real-call.test.ts',
  'test/emulator/fake-microphone-noise.test.ts',
  'test/realtime/push-to-talk.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

// Unit and integration tests: test/<area>/*.test.ts, run against src/ (except test/package, which
// checks the built dist/: `npm run build` first; `npm test` does). Browser end-to-end tests live in
// test/e2e and run under Playwright (playwright.config.ts), never here.
export default defineConfig({
  // The package names resolve to their sources (tsconfig.json's paths say the same for tsc), so the
  // emulator workspace package and tests run from src with no build.
  resolve: {
    alias: [
      { find: /^kb-voice-emulator$/, replacement: here('./emulator/src/index.ts') },
      { find: /^kb-voice-emulator\/cli$/, replacement: here('./emulator/src/cli.ts') },
      { find: /^kb-voice-emulator\/lab$/, replacement: here('./emulator/src/lab/index.ts') },
      { find: /^kb-voice-qa\/load$/, replacement: here('./qa/src/load/measure.ts') },
      { find: /^kb-voice$/, replacement: here('./src/index.ts') },
      { find: /^kb-voice\/(api|schemas|relay|react|testing|widget|otel|noise|cli|sources|check)$/, replacement: here('./src/$1/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/firefox/**', '**/node_modules/**', 'dist/**', 'emulator/dist/**'],
    // @roamhq/wrtc is a native addon with its own threads: child processes isolate it better than
    // worker_threads, and a crash takes down one file, not the run.
    pool: 'forks',
    // The machine (and CI) has 2 cores, but the WebRTC files mostly wait on real-time audio: with
    // 2 workers the suite kept the machine 47 % busy (167 s), with 3 it is 64 % busy (127 s).
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
  },
});
