// Playwright globalSetup: stop at once, with one line saying how to get a browser, when there is
// no Chromium at all (rather than a launch error per test).
import { findChromium, NO_CHROMIUM_MESSAGE } from './chromium.mjs';

export default function globalSetup() {
  if (findChromium() === null) {
    const error = new Error(NO_CHROMIUM_MESSAGE);
    error.stack = NO_CHROMIUM_MESSAGE;
    throw error;
  }
}
