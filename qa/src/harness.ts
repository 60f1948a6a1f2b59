import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';

/** Path prefix of the harness on the relay's origin (answered by page.route, never by the relay). */
export const HARNESS_PATH = '/__kb-voice-qa__/';

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kb-voice-qa harness</title></head>
<body>
<h1>kb-voice-qa harness</h1>
<button id="start" type="button">Start call</button>
<p>Status: <output id="status">idle</output></p>
<script type="module" src="${HARNESS_PATH}harness.js"></script>
</body></html>`;

let script: Promise<string> | undefined;

/** The bundled harness script (dist/harness.bundle.js: this package's page code with kb-voice's browser entry). */
function harnessScript(): Promise<string> {
  script ??= readFile(new URL('./harness.bundle.js', import.meta.url), 'utf8').catch((cause: unknown) => {
    script = undefined;
    throw new Error('kb-voice-qa: dist/harness.bundle.js is missing (in a clone: npm run build)', { cause });
  });
  return script;
}

/**
 * Serves the harness page on `relayUrl`'s origin (same-origin with the relay: no CORS) with
 * page.route and opens it; resolves once its script ran.
 */
export async function openHarness(page: Page, relayUrl: string): Promise<void> {
  const origin = new URL(relayUrl).origin;
  await page.route(`${origin}${HARNESS_PATH}**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === `${HARNESS_PATH}harness.js`) {
      await route.fulfill({ contentType: 'text/javascript', body: await harnessScript() });
    } else {
      await route.fulfill({ contentType: 'text/html', body: HTML });
    }
  });
  await page.goto(`${origin}${HARNESS_PATH}`);
  await page.waitForFunction(() => '__kbVoiceQaHarness' in globalThis);
}
