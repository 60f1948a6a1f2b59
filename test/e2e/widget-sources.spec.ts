import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page, TestInfo } from '@playwright/test';
import type { KbVoiceWidget } from 'kb-voice/widget';
import { expect, test } from './fixtures.js';
import { openWidgetPage } from './widget-page.js';

// Independent calls (each its own page; every worker has its own emulator): spread over the
// workers instead of one after another, so this long file does not decide when the e2e step ends.
test.describe.configure({ mode: 'parallel' });

// Issue 47 in Chromium, through the relay of the demo stack (admin role), on the one-file build:
// each answer shows its sources after its end (the time measured and attached), Show passage highlights the
// cited sentence of the PDF, thumbs down with feedback is stored (E19 shows it), axe clean; in
// English and Japanese. The fake microphone loops a spoken question ("How long is the warranty?").
test.use({ micFile: 'e2e-question.wav' });

/**
 * In the page: when each answer ended and when its sources arrived (performance.now()), by turn id
 * and input. The answer's end as bench/sources-latency.mjs defines it: the assistant's speech
 * stopping (`assistantSpeaking` false) since the previous turn, else the `turn` event.
 */
async function recordSourceTimes(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { sourceTimes: Array<{ id: number; input: string; scripted: boolean; ended: number; sources?: number; count?: number }> };
    w.sourceTimes = [];
    let speechEnd = -1;
    let lastTurn = 0;
    document.querySelector('kb-voice-widget')!.addEventListener('session', (event) => {
      const session = (event as CustomEvent).detail as { on(name: string, fn: (...args: any[]) => void): void };
      session.on('assistantSpeaking', (speaking: boolean) => {
        if (!speaking) speechEnd = performance.now();
      });
      session.on('turn', (turn: { id: number; input: string; scripted?: boolean }) => {
        const now = performance.now();
        w.sourceTimes.push({ id: turn.id, input: turn.input, scripted: turn.scripted === true, ended: speechEnd > lastTurn ? speechEnd : now });
        lastTurn = now;
      });
      session.on('sources', (id: number, sources: unknown[]) => {
        const entry = [...w.sourceTimes].reverse().find((t) => t.id === id && t.sources === undefined);
        if (entry) Object.assign(entry, { sources: performance.now(), count: sources.length });
      });
    });
  });
}

async function firstTurn(page: Page, input: 'voice' | 'text'): Promise<{ id: number; ended: number; sources: number; count: number }> {
  const handle = await page.waitForFunction((kind) => {
    const times = (window as unknown as { sourceTimes: Array<{ input: string; scripted: boolean; sources?: number }> }).sourceTimes;
    // A spoken question counts when the emulator recognized it from the script (it has no recognizer of its own).
    return times.find((t) => t.input === kind && (kind === 'text' || t.scripted) && t.sources !== undefined);
  }, input, { timeout: 60_000 });
  return (await handle.jsonValue()) as unknown as { id: number; ended: number; sources: number; count: number };
}

async function axeClean(page: Page, testInfo: TestInfo, state: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('kb-voice-widget').analyze();
  await testInfo.attach(`axe-${state}.json`, { body: JSON.stringify(results.violations.map((v) => `${v.impact} ${v.id}: ${v.help}`)), contentType: 'application/json' });
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`), `axe (${state})`).toEqual([]);
}

/** The sources block under the answer of turn `id`. */
const blockOf = (widget: Locator, id: number) => widget.locator(`[data-testid="sources"][data-turn="${id}"]`);

for (const { language, words } of [
  { language: 'en', words: { toggle: /^Sources \(\d+\)$/, passage: 'Show passage', page: 'Page 2: ', thanks: 'Thanks for your feedback.', down: 'Not helpful' } },
  { language: 'ja', words: { toggle: /^出典（\d+）$/, passage: '該当箇所を表示', page: '2ページ: ', thanks: 'ご意見ありがとうございます。', down: '役に立たなかった' } },
]) {
  test(`${language}: spoken and typed answers show their sources; Show passage; thumbs down with feedback is stored; axe clean`, async ({ page, stack, emu }, testInfo) => {
    test.setTimeout(150_000);
    const widget = await openWidgetPage(page, stack, { page: (html) => html.replace('language="en"', `language="${language}"`) });
    await recordSourceTimes(page);
    await widget.getByTestId('call-start').click();
    await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });

    // A spoken answer (the looping question, recognized as these words: the emulator has no recognizer;
    // several, in case an utterance is cut short on a busy machine): its sources after its end.
    const sessionId = await widget.evaluate((el: KbVoiceWidget) => el.session!.sessionId!);
    const scripted = await fetch(`${stack.emulator.url}/_emulator/script`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: sessionId, utterances: Array(5).fill('How long is the warranty?') }),
    });
    expect(scripted.ok).toBe(true);
    const spoken = await firstTurn(page, 'voice');
    expect(spoken.count).toBeGreaterThan(0);
    await expect(blockOf(widget, spoken.id).locator('[part~="sources-toggle"]')).toHaveText(words.toggle);
    // A typed question whose answer cites the PDF manual.
    await widget.getByTestId('text-input').fill('Can I immerse the base in water?');
    await widget.getByTestId('text-send').click();
    const typed = await firstTurn(page, 'text');
    const timings = { spokenMs: Math.round(spoken.sources - spoken.ended), typedMs: Math.round(typed.sources - typed.ended) };
    await testInfo.attach('sources-after-answer-ms.json', { body: JSON.stringify(timings), contentType: 'application/json' });
    console.log(`${language}: sources after the answer's end: spoken ${timings.spokenMs} ms, typed ${timings.typedMs} ms`);
    // Issue 47 asks for sources within 1 s of the answer's end on loopback: measured and reported here
    // (annotation and attachment), not asserted, as no test bounds a real call by the wall clock (a
    // busy machine runs it slower: docs/contributing.md). The figure is bench/sources-latency.mjs's
    // (bench/RESULTS.md); why it is short: test/client/sources/emulator-sources.test.ts.
    testInfo.annotations.push({ type: 'sources after answer (ms)', description: `spoken ${timings.spokenMs}, typed ${timings.typedMs}` });

    const block = blockOf(widget, typed.id);
    const toggle = block.locator('[part~="sources-toggle"]');
    await expect(toggle).toHaveText(words.toggle);
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const manual = block.getByTestId('source').filter({ hasText: 'aozora-ak3-quick-start.pdf' });
    await expect(manual).toHaveCount(1);
    // Show passage: E9 through the relay, the page and the sentence highlighted.
    await manual.getByRole('button', { name: words.passage }).click();
    const passage = manual.getByTestId('source-passage');
    await expect(passage).toBeVisible();
    await expect(passage).toHaveText(`${words.page}Do not immerse the base in water.`);
    await expect(passage.locator('mark')).toHaveText('Do not immerse the base in water.');

    // Thumbs down with feedback, stored by the service (E19).
    await block.getByRole('button', { name: words.down }).click();
    await expect(block.getByTestId('rate-down')).toHaveAttribute('aria-pressed', 'true');
    await block.getByTestId('feedback').fill(`Wrong model (${language})`);
    await block.getByTestId('feedback').press('Enter');
    await expect(block.locator('[part="rating-status"]')).toHaveText(words.thanks);
    await axeClean(page, testInfo, `${language} sources open`);

    const messageId = await widget.evaluate((el: KbVoiceWidget, id: number) => [...el.session!.turns].reverse().find((t) => t.id === id)!.messageId, typed.id);
    const stored = await emu.get(`/v1/${emu.robotId}/session.messages?session_id=${sessionId}&size=100`);
    expect(stored.status).toBe(200);
    expect(stored.body.items.find((m: { id: string }) => m.id === messageId)).toMatchObject({ rating: -1, feedback_content: `Wrong model (${language})` });
    await widget.getByTestId('call-end').click();
    await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'ended', { timeout: 20_000 });
  });
}

test('sources="off": no sources UI and no message read after answers', async ({ page, stack }) => {
  test.setTimeout(90_000);
  const reads: string[] = [];
  page.on('request', (request) => {
    if (/session\.messages\/|question\/references|pdf\/highlight/.test(request.url())) reads.push(request.url());
  });
  const widget = await openWidgetPage(page, stack, { page: (html) => html.replace('language="en"', 'language="en" sources="off"') });
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });
  await widget.getByTestId('text-input').fill('How long is the warranty?');
  await widget.getByTestId('text-send').click();
  await expect(widget.locator('[data-testid="caption"][data-role="assistant"][data-input="text"][data-final="true"]')).toContainText('two-year', { timeout: 30_000 });
  // The turn is in the snapshot; the session's own read would have started with it.
  await expect.poll(() => widget.evaluate((el: KbVoiceWidget) => el.session!.turns.some((t) => t.input === 'text'))).toBe(true);
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'ended', { timeout: 20_000 });
  expect(await widget.getByTestId('sources').count()).toBe(0);
  expect(reads).toEqual([]);
});
