import type { Page } from '@playwright/test';
import { PageBridge, type SessionMirror } from './bridge.js';
import type { Call } from './call.js';
import { decodeInPage, fromOnset } from './first-words.js';
import { openHarness } from './harness.js';
import { scriptTranscript } from './service.js';
import { prepareUtterance } from './speech.js';
import type { CallOptions } from './types.js';

/** The page's QA hooks as `sayAtStart` uses them (page/in-page.ts), and the clip the click started. */
type SayingGlobal = { __KB_VOICE_QA__: { play(c: { pcm: string; rate: number }): Promise<number> }; __kbVoiceQaSaying?: Promise<number> };

/** What a harness call talks to. */
export interface CallTarget {
  relayUrl: string;
  aiId: string;
  /** The emulator behind the relay, to script `sayAtStart`'s words on. */
  emulatorUrl?: string | undefined;
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
  const { sayAtStart, ...sessionOptions } = options;
  // Said at the click: ready (synthesized, its words scripted emulator-wide, as the session has no id yet) before it.
  const atStart = sayAtStart === undefined ? undefined : await prepareUtterance(sayAtStart);
  if (atStart?.transcript !== undefined && target.emulatorUrl) await scriptTranscript(target.emulatorUrl, undefined, atStart.transcript);
  const bridge = await PageBridge.install(page);
  await openHarness(page, target.relayUrl);
  await page.evaluate(
    (config) => (globalThis as unknown as { __kbVoiceQaHarness: { configure(c: unknown): void } }).__kbVoiceQaHarness.configure(config),
    { relayUrl: target.relayUrl, aiId: target.aiId, ...sessionOptions },
  );
  // The caller is speaking at the click: the clip from its speech onset (first-words.ts, fromOnset),
  // started by the click itself (a capturing listener, ahead of the page's own), not by a later
  // round trip from here, which a page busy starting the call answers late.
  const clip = atStart && { pcm: Buffer.from(fromOnset(await decodeInPage(page, atStart.wav), 16000).slice().buffer).toString('base64'), rate: 16000 };
  if (clip) {
    await page.evaluate((c) => {
      const g = globalThis as unknown as SayingGlobal;
      document.addEventListener('click', () => void (g.__kbVoiceQaSaying = g.__KB_VOICE_QA__.play(c)), { capture: true, once: true });
    }, clip);
  }
  await page.getByRole('button', { name: 'Start call' }).click();
  const speaking = clip && page.evaluate(() => (globalThis as unknown as SayingGlobal).__kbVoiceQaSaying);
  const timeout = (options.connectTimeoutMs ?? 15_000) + 5_000;
  const call = makeCall(page, await bridge.next(timeout));
  if (atStart && speaking) call.saidAtStart(atStart.wav, speaking);
  await call.waitConnected(timeout);
  return call;
}
