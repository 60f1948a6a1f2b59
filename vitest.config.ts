import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
      { find: /^kb-voice$/, replacement: here('./src/index.ts') },
      { find: /^kb-voice\/(api|schemas|relay|react|testing|widget)$/, replacement: here('./src/$1/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', '**/node_modules/**', 'dist/**', 'emulator/dist/**'],
    // @roamhq/wrtc is a native addon with its own threads: child processes isolate it better than
    // worker_threads, and a crash takes down one file, not the run.
    pool: 'forks',
    // The machine (and CI) has 2 cores; WebRTC tests are CPU-bound (audio encode/decode, VAD).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
  },
});
