// Which Firefox the Firefox suite drives (test/firefox), shared by test/firefox/firefox.ts and
// scripts/test.mjs. Order: $FIREFOX_PATH, then Debian's /usr/bin/firefox-esr (what .ci/run
// installs), then /usr/bin/firefox. Playwright's own Firefox build is not used: it is not reachable
// here (only the npm registry and Debian's archive are), and Debian's is the Firefox users' CI has.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const NO_FIREFOX_MESSAGE =
  'No Firefox found: the Firefox suite (test/firefox) is skipped. Install Debian\'s firefox-esr ' +
  '(apt-get install -y firefox-esr pulseaudio) or set FIREFOX_PATH';

export const NO_PULSEAUDIO_MESSAGE =
  'pulseaudio not found: the Firefox suite starts its own audio server (Firefox runs no Web Audio ' +
  'without an audio output device). Install it: apt-get install -y pulseaudio';

/** @returns {string | null} the Firefox executable, or null when there is none */
export function findFirefox() {
  const fromEnv = process.env.FIREFOX_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  return ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((p) => existsSync(p)) ?? null;
}

/** Whether the `pulseaudio` command runs here. */
export function hasPulseAudio() {
  return spawnSync('pulseaudio', ['--version'], { stdio: 'ignore' }).status === 0;
}
