import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { createServer, type ViteDevServer } from 'vite';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import { startDemoStack, type DemoStack } from '../../scripts/demo-stack.mjs';

// kb-voice/react in a real app: test/e2e/react-page (React, Vite, StrictMode on) drives a real call
// in Chromium against the emulator through the relay — start, live captions, a typed question
// answered, mute toggled and shown, end, report. The fake microphone plays silence.

const here = fileURLToPath(new URL('.', import.meta.url));
test.use({
  launchOptions: chromiumLaunchOptions([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${resolve(here, '../fixtures/audio/e2e-silence.wav')}`,
  ]),
});

let stack: DemoStack;
let vite: ViteDevServer;
let pageUrl: string;

test.beforeAll(async () => {
  stack = await startDemoStack({ emulatorPort: 0, relayPort: 0, pagePort: 0, agentBuildMs: 300, voice: 'builtin', watch: false, quiet: true });
  vite = await createServer({
    configFile: false,
    root: resolve(here, 'react-page'),
    logLevel: 'silent',
    clearScreen: false,
    server: { host: '127.0.0.1', port: 0, hmr: false, watch: null, proxy: { '/api/voice': { target: stack.relayUrl } } },
  });
  await vite.listen();
  const address = vite.httpServer!.address() as { port: number };
  pageUrl = `http://127.0.0.1:${address.port}/?ai_id=${stack.emulator.fixtures.robotId}`;
});

test.afterAll(async () => {
  await vite?.close();
  await stack?.close();
});

test('React page (StrictMode): start, live captions, typed question answered, mute shown, end, report', async ({ page }) => {
  test.setTimeout(120_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(pageUrl);

  await expect(page.getByTestId('call-status')).toHaveText('idle');
  await page.getByTestId('call-start').click();
  await expect(page.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });

  await page.getByTestId('text-input').fill('How long is the warranty?');
  await page.getByTestId('text-send').click();
  // The answer streams in as a live caption before the turn completes.
  await expect(page.getByTestId('caption-user')).toHaveText('How long is the warranty?');
  await expect(page.getByTestId('caption')).not.toBeEmpty({ timeout: 20_000 });
  const turn = page.getByTestId('turn');
  await expect(turn).toHaveCount(1, { timeout: 30_000 });
  await expect(turn.getByTestId('turn-answer')).toContainText(/warranty|year/i);
  await expect(page.locator('[data-captions-seen="1"]')).toBeAttached();

  await page.getByTestId('mute-toggle').click();
  await expect(page.getByTestId('mic-status')).toHaveText('muted');
  await expect(page.getByTestId('mute-toggle')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('mute-toggle').click();
  await expect(page.getByTestId('mic-status')).toHaveText('live');

  await page.getByTestId('call-end').click();
  await expect(page.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });

  // The service records the turn and the audio shortly after the call: ask until it has them.
  await expect(async () => {
    await page.getByTestId('report').click();
    await expect(page.getByTestId('report-summary')).toHaveAttribute('data-usage-turns', '1', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  const summary = page.getByTestId('report-summary');
  await expect(summary).toHaveAttribute('data-turns', '1');
  expect(Number(await summary.getAttribute('data-audio'))).toBeGreaterThan(0);
  await expect(page.getByTestId('error')).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});
