import type { Page } from '@playwright/test';
import { PageBridge, type SessionMirror } from './bridge.js';
import type { Call } from './call.js';
import { openHarness } from './harness.js';
import type { CallOptions } from './types.js';

/** What a harness call talks to. */
export interface CallTarget {
  relayUrl: string;
  aiId: string;
}

/**
 * Opens the harness (on the relay's origin) in `page` running `VoiceSession` with `options`,
 * clicks its Start (a real gesture, so answers play) and resolves once connected; `makeCall` turns
 * the page's session into a `Call`. Used by the `voiceCall` fixture and by Artillery's Playwright
 * scenarios (kb-voice-qa/artillery).
 */
export async function startHarnessCall(
  page: Page,
  target: CallTarget,
  options: CallOptions & { language: string },
  makeCall: (page: Page, mirror: SessionMirror) => Call,
): Promise<Call> {
  const bridge = await PageBridge.install(page);
  await openHarness(page, target.relayUrl);
  await page.evaluate(
    (config) => (globalThis as unknown as { __kbVoiceQaHarness: { configure(c: unknown): void } }).__kbVoiceQaHarness.configure(config),
    { relayUrl: target.relayUrl, aiId: target.aiId, ...options },
  );
  await page.getByRole('button', { name: 'Start call' }).click();
  const timeout = (options.connectTimeoutMs ?? 15_000) + 5_000;
  const call = makeCall(page, await bridge.next(timeout));
  await call.waitConnected(timeout);
  return call;
}
