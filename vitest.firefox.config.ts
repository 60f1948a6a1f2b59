import { defineConfig } from 'vitest/config';

// The Firefox suite (test/firefox): Debian's firefox-esr over WebDriver BiDi, against the BUILT
// package (like test/e2e), one file at a time (each call is real time, and Firefox's audio must not
// starve). scripts/test.mjs runs it alone after Vitest, before the Chromium e2e step; alone: `npx vitest run --config
// vitest.firefox.config.ts` after `npm run build`.
export default defineConfig({
  test: {
    include: ['test/firefox/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // As the Chromium e2e (playwright.config.ts): once more in CI, for a real-time call that lost its
    // first try on a loaded machine (the widget's spoken turn timed out once in 5 full runs).
    retry: process.env.CI ? 1 : 0,
  },
});
