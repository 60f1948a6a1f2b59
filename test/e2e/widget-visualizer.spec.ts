import type { Locator, Page } from '@playwright/test';
import type { KbVoiceWidget } from 'kb-voice/widget';
import { expect, test } from './fixtures.js';
import { openWidgetPage } from './widget-page.js';

// The visualizer (issue 40): both voices as they are spoken, from the session's levels; still under
// prefers-reduced-motion; nothing drawn while the widget is hidden. The fake microphone loops a
// spoken question followed by silence, so the caller speaks and the assistant answers.
test.use({ micFile: 'e2e-question.wav' });

/** Records, per voice, every bar height drawn and every `data-speaking` value, in `window.drawn`. */
async function recordDrawing(widget: Locator): Promise<void> {
  await widget.evaluate((host) => {
    const w = window as unknown as { drawn: Record<string, { heights: string[]; speaking: string[]; writes: number }> };
    w.drawn = {};
    for (const voice of host.shadowRoot!.querySelectorAll<HTMLElement>('[data-voice]')) {
      const name = voice.dataset.voice!;
      const seen: { heights: string[]; speaking: string[]; writes: number } = (w.drawn[name] = { heights: [], speaking: [], writes: 0 });
      new MutationObserver((records) => {
        for (const record of records) {
          seen.writes++;
          if (record.attributeName === 'style') seen.heights.push((record.target as HTMLElement).style.transform);
          if (record.attributeName === 'data-speaking') seen.speaking.push(voice.dataset.speaking!);
        }
      }).observe(voice, { subtree: true, attributes: true, attributeFilter: ['style', 'data-speaking'] });
    }
  });
}

const drawn = (page: Page) =>
  page.evaluate(() => (window as unknown as { drawn: Record<string, { heights: string[]; speaking: string[]; writes: number }> }).drawn);

/** Distinct bar heights drawn for a voice. */
async function heights(page: Page, voice: string): Promise<Set<string>> {
  return new Set((await drawn(page))[voice]!.heights);
}

test('the bars move with the caller\u2019s question and the assistant\u2019s answer, and rest when hidden', async ({ page, stack, emu }) => {
  void emu;
  test.setTimeout(120_000);
  const widget = await openWidgetPage(page, stack);
  await expect(widget.getByTestId('visualizer')).toHaveAttribute('data-active', 'false');
  await recordDrawing(widget);
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  await expect(widget.getByTestId('visualizer')).toHaveAttribute('data-active', 'true');
  // The caller's question, then the answer: both voices' bars take many heights as they speak.
  await expect.poll(async () => (await heights(page, 'caller')).size, { timeout: 30_000 }).toBeGreaterThan(5);
  await expect.poll(async () => (await heights(page, 'assistant')).size, { timeout: 40_000 }).toBeGreaterThan(5);
  expect((await drawn(page)).caller!.speaking).toContain('true');

  // Hidden: no drawing at all, while the session still measures (its level events go on).
  await widget.evaluate((el: KbVoiceWidget) => (el.hidden = true));
  await page.waitForFunction(() => !document.querySelector('kb-voice-widget')!.checkVisibility());
  // IntersectionObserver reports asynchronously: count level events only after it told the visualizer.
  await page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)))));
  const before = await drawn(page);
  const writes = (before.caller!.writes ?? 0) + (before.assistant!.writes ?? 0);
  await widget.evaluate((el: KbVoiceWidget) => new Promise<void>((resolve) => {
    let seen = 0;
    const count = () => {
      if (++seen < 15) return;
      el.session!.off('level', count);
      resolve();
    };
    el.session!.on('level', count);
  }));
  const after = await drawn(page);
  expect(after.caller!.writes + after.assistant!.writes).toBe(writes);
  await widget.evaluate((el: KbVoiceWidget) => (el.hidden = false));
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
  await expect(widget.getByTestId('visualizer')).toHaveAttribute('data-active', 'false');
});

test('under prefers-reduced-motion the bars stay still; who speaks shows without movement', async ({ page, stack, emu }) => {
  void emu;
  test.setTimeout(120_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const widget = await openWidgetPage(page, stack);
  await recordDrawing(widget);
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  // The caller speaks, then the assistant: data-speaking follows both.
  await expect.poll(async () => (await drawn(page)).caller!.speaking.includes('true'), { timeout: 30_000 }).toBe(true);
  await expect.poll(async () => (await drawn(page)).assistant!.speaking.includes('true'), { timeout: 40_000 }).toBe(true);
  const bars = await widget.evaluate((host) =>
    [...host.shadowRoot!.querySelectorAll<HTMLElement>('[part="visualizer-bar"]')].map((bar) => ({ transform: bar.style.transform, transition: getComputedStyle(bar).transitionDuration })),
  );
  for (const bar of bars) expect(bar).toEqual({ transform: 'scaleY(0.12)', transition: '0s' });
  expect([...(await heights(page, 'caller')), ...(await heights(page, 'assistant'))].every((h) => h === 'scaleY(0.12)')).toBe(true);
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
});
