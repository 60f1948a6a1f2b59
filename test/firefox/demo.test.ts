// Firefox ESR end to end (docs/contributing.md, "Firefox"): the QA page and the widget in Debian's
// firefox-esr over WebDriver BiDi, against our own emulator + relay + demo page (scripts/demo-stack.mjs,
// the built package: `npm run build` first; `npm test` does). The microphone loops a spoken question
// through the suite's PulseAudio (firefox.ts); without an audio server it is Firefox's fake tone.
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoStack, type DemoStack } from '../../scripts/demo-stack.mjs';
import { launchFirefox, startAudioServer, type AudioServer } from './firefox.js';
import { hangReport } from './hang-report.js';

/** Generous: a call on a 2-core machine shared with other work; every wait below is on an event, not a guess. */
const WAIT = { timeout: 120_000, polling: 100 } as const;

let stack: DemoStack;
beforeAll(async () => {
  stack = await startDemoStack({ pagePort: 0, emulatorPort: 0, relayPort: 0, agentBuildMs: 200, language: 'en', quiet: true, watch: false });
});
afterAll(async () => {
  await stack?.close();
});

/**
 * What the page shows, for a wait that failed: the call's status, the captions or turns, an error.
 * At most 10 s: a Firefox that stopped answering let this read wait out the whole 120 s protocol
 * timeout too (a busy-core run's failed try took 240 s so, before its retry).
 */
const pageState = (page: Page) =>
  Promise.race([readPageState(page), new Promise<string>((resolve) => setTimeout(resolve, 10_000, '(unreadable: no answer within 10 s)'))]);

const readPageState = (page: Page) =>
  page.evaluate(() => {
    const root: ParentNode = document.querySelector('kb-voice-widget')?.shadowRoot ?? document;
    const all = (sel: string) => [...root.querySelectorAll(sel)].map((n) => `${(n as HTMLElement).dataset.role ?? ''}${(n as HTMLElement).dataset.final === 'true' ? '(final)' : ''}: ${n.textContent?.trim().slice(0, 80)}`);
    const status = root.querySelector('[data-testid="call-status"]');
    return JSON.stringify({
      status: (status as HTMLElement | null)?.dataset.status ?? status?.textContent?.trim(),
      captions: all('[data-testid="caption"]'), turns: all('[data-testid="turn"]'),
      error: root.querySelector('[data-testid="error"]')?.textContent?.trim(),
    });
  }).catch((error: unknown) => `(unreadable: ${String(error)})`);

/** page.waitForFunction that, when it times out, says what it waited for and what the page showed. */
async function waitUntil(page: Page, what: string, fn: () => boolean): Promise<void> {
  try {
    await page.waitForFunction(fn, WAIT);
  } catch (error) {
    // and what this test's processes were doing (a Firefox that stopped answering: spinning or
    // blocked, and which thread): this worker's tree, Firefox's processes, PulseAudio and the microphone's player
    throw new Error(`${what}: ${(error as Error).message}; the page: ${await pageState(page)}\nthe processes:\n${await hangReport(process.pid)}`, { cause: error });
  }
}

const text = (page: Page, testId: string) =>
  page.$eval(`[data-testid="${testId}"]`, (node) => node.textContent?.trim() ?? '');
const meter = (page: Page, testId: 'input-level' | 'output-level') =>
  page.$eval(`[data-testid="${testId}"]`, (node) => ({
    peak: Number((node as HTMLElement).dataset.peak ?? 0),
    unavailable: (node as HTMLElement).dataset.unavailable,
  }));

async function startQaCall(page: Page): Promise<void> {
  await page.goto(`${stack.pageUrl}?lang=en`);
  await waitUntil(page, 'QA page idle', () => document.querySelector('[data-testid="call-status"]')?.textContent?.trim() === 'idle');
  await page.click('[data-testid="call-start"]');
  await waitUntil(page, 'QA call connected', () => document.querySelector('[data-testid="call-status"]')?.textContent?.trim() === 'connected');
}

/** The first spoken turn finished, with a question heard and an answer given. */
async function firstVoiceTurnAnswered(page: Page): Promise<void> {
  await waitUntil(page, 'a voice turn answered', () => {
    const turn = document.querySelector('[data-testid="turn"][data-input="voice"]');
    return !!turn?.querySelector('[data-testid="turn-question"]')?.textContent?.trim() && !!turn.querySelector('[data-testid="turn-answer"]')?.textContent?.trim();
  });
}

async function endQaCall(page: Page): Promise<void> {
  await page.click('[data-testid="call-end"]');
  await waitUntil(page, 'QA call ended', () => document.querySelector('[data-testid="call-status"]')?.textContent?.trim() === 'ended');
}

/**
 * A Firefox of the test's own, closed after it: under heavy load (a machine running more than the
 * suite) a Firefox once stopped answering WebDriver BiDi in the middle of the widget's call, and the
 * retry, given the same browser, could not even open a tab. A retry gets a new one.
 */
function firefoxPerTest(audio: () => AudioServer | null): () => Browser {
  let browser: Browser | undefined;
  beforeEach(async () => {
    browser = await launchFirefox(audio());
  });
  afterEach(async () => {
    const open = browser;
    browser = undefined;
    if (!open) return;
    // A browser that stopped answering does not close either: its process is killed.
    const closed = await Promise.race([open.close().then(() => true, () => false), new Promise<boolean>((resolve) => setTimeout(resolve, 10_000, false))]);
    if (!closed) open.process()?.kill('SIGKILL');
  });
  return () => browser!;
}

describe('Firefox ESR with an audio server', () => {
  let audio: AudioServer;
  beforeAll(async () => {
    audio = await startAudioServer();
  });
  afterAll(async () => {
    await audio?.close();
  });
  const firefox = firefoxPerTest(() => audio);

  it('QA page: a spoken turn is answered, and both meters move during it', async () => {
    const page = await firefox().newPage();
    await startQaCall(page);
    await firstVoiceTurnAnswered(page);
    const input = await meter(page, 'input-level');
    const output = await meter(page, 'output-level');
    expect(input.peak).toBeGreaterThan(0.05);
    expect(output.peak).toBeGreaterThan(0.05);
    await endQaCall(page);
    expect(await text(page, 'call-status')).toBe('ended');
    await page.close();
  });

  it('widget: start, the answer in the captions, end', async () => {
    const page = await firefox().newPage();
    await page.goto(new URL('widget.html', stack.pageUrl).href);
    await waitUntil(page, 'widget idle', () => document.querySelector('kb-voice-widget')?.shadowRoot?.querySelector('[data-testid="call-status"]')?.getAttribute('data-status') === 'idle');
    await page.evaluate(() => (document.querySelector('kb-voice-widget')!.shadowRoot!.querySelector('[data-testid="call-start"]') as HTMLButtonElement).click());
    await waitUntil(page, 'widget connected', () => document.querySelector('kb-voice-widget')?.shadowRoot?.querySelector('[data-testid="call-status"]')?.getAttribute('data-status') === 'connected');
    await waitUntil(page, 'an answer in the captions', () => {
      const captions = document.querySelector('kb-voice-widget')?.shadowRoot?.querySelectorAll('[data-testid="caption"][data-role="assistant"][data-final="true"]') ?? [];
      return [...captions].some((c) => /\w/.test(c.textContent ?? ''));
    });
    await page.evaluate(() => (document.querySelector('kb-voice-widget')!.shadowRoot!.querySelector('[data-testid="call-end"]') as HTMLButtonElement).click());
    await waitUntil(page, 'widget ended', () => document.querySelector('kb-voice-widget')?.shadowRoot?.querySelector('[data-testid="call-status"]')?.getAttribute('data-status') === 'ended');
    const error = await page.evaluate(() => (document.querySelector('kb-voice-widget')!.shadowRoot!.querySelector('[data-testid="error"]') as HTMLElement | null)?.hidden ?? true);
    expect(error).toBe(true);
    await page.close();
  });
});

// What a container or CI runner without a sound server gives: Firefox keeps every AudioContext
// suspended. The output meter then reads the answer's level from its RTP packets (RFC 6464 through
// getSynchronizationSources); the microphone has no such source, so the input meter says "cannot
// measure" (null), never a fake 0. Before this fallback both meters sat at 0 through the whole call.
describe('Firefox ESR without an audio server', () => {
  const firefox = firefoxPerTest(() => null);

  it('QA page: the output meter moves with the answer; the input meter says it cannot measure', async () => {
    const page = await firefox().newPage();
    await startQaCall(page);
    // A typed question (the microphone muted: Firefox's fake tone is no question): the answer is spoken all the same.
    await page.click('[data-testid="mute-toggle"]');
    await page.type('[data-testid="text-input"]', 'How long is the warranty?');
    await page.click('[data-testid="text-send"]');
    await waitUntil(page, 'the typed question answered', () => !!document.querySelector('[data-testid="turn"][data-input="text"] [data-testid="turn-answer"]')?.textContent?.trim());
    const output = await meter(page, 'output-level');
    expect(output.peak).toBeGreaterThan(0.05);
    expect(output.unavailable).toBe('false');
    expect((await meter(page, 'input-level')).unavailable).toBe('true');
    await endQaCall(page);
    await page.close();
  });
});
