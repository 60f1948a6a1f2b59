/**
 * Playwright fixtures of the end-to-end tests:
 * - `stack` (worker): our own emulator + relay + demo page on ephemeral loopback ports, so tests never
 *   collide with a running `npm run demo`; agent build time is short to keep calls fast.
 * - `micFile` (worker option): the WAV Chromium plays as the fake microphone (it loops the file).
 *   test/fixtures/audio/e2e-*.wav, 48 kHz mono PCM16, made once and committed (tests need no espeak/sox):
 *     espeak-ng -v en-us -s 165 -w q.wav "How long is the warranty?"
 *     sox q.wav -r 48000 -c 1 -b 16 -e signed-integer e2e-question.wav pad 0.3 12 norm -3  # loop > answer: one turn per loop
 *     sox q.wav -r 48000 -c 1 -b 16 -e signed-integer e2e-barge-in.wav pad 0.3 3 norm -3   # speaks again mid-answer
 *     sox -n -r 48000 -c 1 -b 16 -e signed-integer e2e-silence.wav trim 0 1                  # typed-only calls
 * - `audit` (auto, per test): records every request the page makes and fails the test when the page
 *   sent the API key or talked to the emulator other than by a presigned audio download.
 * - `emu`: test-side access to the emulator (faults, reset, checks with the key) — the test may, the page may not.
 */
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoStack, type DemoStack } from '../../scripts/demo-stack.mjs';
import { RequestAudit } from './request-audit.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const AUDIO_DIR = resolve(ROOT, 'test/fixtures/audio');

/** Emulator control and key-holding checks, for the test code only. */
export class EmulatorHandle {
  constructor(readonly stack: DemoStack) {}
  get url() { return this.stack.emulator.url; }
  get robotId() { return this.stack.emulator.fixtures.robotId; }

  async faults(faults: { warmup?: 'ok' | 'fail' | 'hang'; latencyMs?: number }): Promise<void> {
    const res = await fetch(`${this.url}/_emulator/faults`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults),
    });
    expect(res.ok, `PUT /_emulator/faults → ${res.status}`).toBe(true);
  }

  async reset(): Promise<void> {
    const res = await fetch(`${this.url}/_emulator/reset`, { method: 'POST' });
    expect(res.ok, `POST /_emulator/reset → ${res.status}`).toBe(true);
  }

  /** GET with the key, straight to the emulator (used to check what the page claims). */
  async get(path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.url}${path}`, { headers: { authorization: `Bearer ${this.stack.emulator.apiKey}` } });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
}

interface Fixtures {
  audit: RequestAudit;
  emu: EmulatorHandle;
  /** Opens the QA page (optionally with a query string) and waits for its script to run. */
  openDemo: (query?: string) => Promise<Page>;
}
interface WorkerFixtures {
  stack: DemoStack;
  micFile: string;
  /** The emulator's answer voice (`builtin` keeps answers' timing independent of the machine; `flite` speaks English words). */
  voice: 'builtin' | 'flite';
  /** A network-lab profile the emulator puts every call's media through (kb-voice-emulator/lab); default none. */
  network: 'none' | 'wifi' | '4g' | 'congested-wifi' | 'satellite' | '3g-poor';
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  micFile: ['e2e-silence.wav', { scope: 'worker', option: true }],
  voice: ['builtin', { scope: 'worker', option: true }],
  network: ['none', { scope: 'worker', option: true }],

  // Adds the fake-microphone file to whatever the config launches Chromium with.
  launchOptions: [
    async ({ launchOptions, micFile }, use) => {
      const args = [...(launchOptions.args ?? [])];
      for (const flag of ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']) {
        if (!args.includes(flag)) args.push(flag);
      }
      args.push(`--use-file-for-fake-audio-capture=${resolve(AUDIO_DIR, micFile)}`);
      await use({ ...launchOptions, args });
    },
    { scope: 'worker' },
  ],

  stack: [
    async ({ voice, network }, use) => {
      const stack = await startDemoStack({
        emulatorPort: 0, relayPort: 0, pagePort: 0, agentBuildMs: 300, voice, watch: false, quiet: true,
        ...(network === 'none' ? {} : { network }),
      });
      await use(stack);
      await stack.close();
    },
    { scope: 'worker', timeout: 60_000 },
  ],

  emu: async ({ stack }, use) => {
    const emu = new EmulatorHandle(stack);
    // Every test starts from the seeded state without faults.
    await emu.reset();
    await emu.faults({ warmup: 'ok', latencyMs: 0 });
    await use(emu);
  },

  audit: [
    async ({ page, stack }, use) => {
      const audit = await RequestAudit.attach(page, { emulatorUrl: stack.emulator.url, apiKey: stack.emulator.apiKey, pageUrl: stack.pageUrl });
      await use(audit);
      await audit.settle();
      audit.assertClean();
    },
    { auto: true },
  ],

  openDemo: async ({ page, stack, emu }, use) => {
    void emu; // ensure reset before the page loads
    await use(async (query = '') => {
      await page.goto(new URL(query, stack.pageUrl).toString());
      await expect(page.locator('body[data-ready="true"]')).toBeAttached({ timeout: 30_000 });
      return page;
    });
  },
});

export { expect };

/** Full-page screenshot into the test's output folder (test-results/, not committed) and the report. */
export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** Saves the demo page's screenshot (docs/demo.png) only when asked: UPDATE_DEMO_SCREENSHOT=1 npm run test:e2e. */
export async function snapForReadme(page: Page): Promise<void> {
  if (!process.env.UPDATE_DEMO_SCREENSHOT) return;
  const path = resolve(ROOT, 'docs/demo.png');
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
}
