// Which Chromium the browser tests drive, shared by playwright.config.ts and scripts/test.mjs.
// Order: $CHROMIUM_PATH, then Debian's /usr/bin/chromium (what .ci/run installs), then the browser
// `npx playwright install chromium` downloads (a developer's laptop). Playwright's own download
// cannot be used in CI here: only the npm registry and Debian's archive are reachable.
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

export const NO_CHROMIUM_MESSAGE =
  'No Chromium found: install Debian\'s chromium (apt-get install -y chromium) or run ' +
  'npx playwright install chromium, or set CHROMIUM_PATH';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a headless Chromium in a container and CI: no sandbox (runs as root), no GPU, no
 * background traffic to Google services (the network only reaches package registries), and
 * fake media devices with the permission prompt auto-accepted so getUserMedia works unattended.
 * A test project that plays a WAV as the microphone appends
 * `--use-file-for-fake-audio-capture=PATH` to a copy of this list.
 */
export const CHROMIUM_ARGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
]);

/**
 * @returns {{ source: 'CHROMIUM_PATH' | 'debian' | 'playwright', executablePath: string | undefined } | null}
 *   `executablePath` is undefined for Playwright's own browser (Playwright finds it itself);
 *   null when there is no browser at all.
 */
export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    return existsSync(fromEnv) ? { source: 'CHROMIUM_PATH', executablePath: fromEnv } : null;
  }
  if (existsSync(DEBIAN_CHROMIUM)) return { source: 'debian', executablePath: DEBIAN_CHROMIUM };
  let bundled = '';
  try {
    bundled = chromium.executablePath();
  } catch {
    // Playwright throws when it has no build for this platform.
  }
  return bundled && existsSync(bundled) ? { source: 'playwright', executablePath: undefined } : null;
}

/**
 * Playwright `launchOptions` for the found Chromium with CHROMIUM_ARGS plus `extraArgs`.
 * @param {readonly string[]} [extraArgs]
 */
export function chromiumLaunchOptions(extraArgs = []) {
  const found = findChromium();
  return {
    ...(found?.executablePath ? { executablePath: found.executablePath } : {}),
    args: [...CHROMIUM_ARGS, ...extraArgs],
  };
}
