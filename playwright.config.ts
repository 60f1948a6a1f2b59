import { defineConfig, devices } from '@playwright/test';
import { chromiumLaunchOptions } from './scripts/chromium.mjs';
import type { VoiceWorkerOptions } from 'kb-voice-qa';

// Browser end-to-end tests (test/e2e). Chromium: $CHROMIUM_PATH, else Debian's /usr/bin/chromium,
// else Playwright's own (`npx playwright install chromium`); with none, globalSetup stops the run
// with one line saying how to get one (scripts/chromium.mjs).
//
// A project that needs more Chromium flags (e.g. a WAV as the fake microphone) must pass the whole
// list, because a project's `launchOptions` replaces this one:
//   use: { launchOptions: chromiumLaunchOptions(['--use-file-for-fake-audio-capture=...']) }
/** Only what a root user in a container needs: no media flags (kb-voice-qa fakes the microphone in the page). */
function qaLaunchOptions() {
  const { executablePath } = chromiumLaunchOptions() as { executablePath?: string };
  return { ...(executablePath ? { executablePath } : {}), args: ['--no-sandbox'] };
}

export default defineConfig<{}, Partial<VoiceWorkerOptions>>({
  testDir: 'test/e2e',
  globalSetup: './scripts/playwright-global-setup.mjs',
  // Artifacts (screenshots, traces) of failed tests; gitignored. Playwright empties it per run, so
  // it is a subfolder and the other reports in test-results/ survive.
  outputDir: 'test-results/e2e',
  // Three browsers at once: a test is mostly waiting on real-time audio, but not only (the apps'
  // builds, Chromium's audio and WebRTC): four workers made every test ~20 % slower and two of them
  // time out once (npm test of 2026-11-28), for 55 s less in all. Each worker has its own emulator
  // and page server (worker fixtures), so tests share nothing, and the long files run their tests in
  // parallel (`describe.configure({ mode: 'parallel' })`) so no one file decides when the step ends.
  // Proven on a loaded machine by scripts/ci-under-load.sh; a test that cannot stand a busy machine
  // is a defect to fix, not a reason to serialise the suite.
  workers: 3,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // Once in CI: a real WebRTC call over loopback can lose a first ICE/DTLS race on a loaded machine.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: chromiumLaunchOptions(),
  },
  projects: [
    // The app matrix (test/apps, issue 45): kb-voice from its packed tarballs in Vite, webpack, Next.js
    // and a plain page, under a strict CSP. scripts/test.mjs installs it first (node test/apps/matrix/install.mjs).
    // Typed questions only: the fake microphone plays silence. Listed first so its one long file (~4.5 min,
    // the builds included) starts at once on one worker while the other two take test/e2e's files.
    {
      name: 'apps',
      testDir: 'test/apps',
      testMatch: 'matrix.spec.ts',
      use: { ...devices['Desktop Chrome'], launchOptions: chromiumLaunchOptions(['--use-file-for-fake-audio-capture=test/fixtures/audio/e2e-silence.wav']) },
    },
    { name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: chromiumLaunchOptions() } },
    // kb-voice-qa's own suite (qa/test): the built package, in a Chromium WITHOUT the fake-media
    // flags — its fake microphone is put into the page, which is what this project proves.
    {
      name: 'kb-voice-qa',
      testDir: 'qa/test',
      testIgnore: '**/fixtures/**',
      // One emulator + relay for the whole project (a test.use() per file would mean a worker, an
      // emulator and a browser per file); a short agent build keeps first turns quick.
      use: { ...devices['Desktop Chrome'], launchOptions: { ...qaLaunchOptions() }, voice: { emulator: { agentBuildMs: 300 }, language: 'en' } },
    },
  ],
});
