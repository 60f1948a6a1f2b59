import { AxeBuilder } from '@axe-core/playwright'; // named: 4.13's types are CommonJS under NodeNext
import type { Locator, Page } from '@playwright/test';
import type { KbVoiceWidget } from 'kb-voice/widget';
import { expect, test } from './fixtures.js';
import { openWidgetPage } from './widget-page.js';

// The widget's languages (issue 40): Japanese and English built in, chosen by `language`, then the
// page's lang; the page's own strings over them; every label inside its box at phone width; axe
// clean in both; and page styles that do not leak in. Typed questions only: the microphone is silent.
test.use({ micFile: 'e2e-silence.wav', viewport: { width: 360, height: 800 } });

const withLanguage = (language: string | null) => (html: string) =>
  html.replace(' language="en"', language === null ? '' : ` language="${language}"`);

/** Fails on every text of the widget that does not fit its box, or a box that leaves the panel. */
async function expectNoOverflow(widget: Locator): Promise<void> {
  const problems = await widget.evaluate((host) => {
    const root = host.shadowRoot!;
    const panel = root.querySelector('.panel')!.getBoundingClientRect();
    const out: string[] = [];
    for (const el of root.querySelectorAll<HTMLElement>('button, label, .status, .title, .quality, [data-testid="mic-status"], .voice-name, input, .latency, .error')) {
      if (el.closest('[hidden]') || el.getClientRects().length === 0) continue;
      const box = el.getBoundingClientRect();
      const name = `${el.dataset.testid ?? el.className ?? el.tagName}: "${el.textContent ?? ''}"`;
      if (el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'LABEL') out.push(`${name} overflows its box (${el.scrollWidth} > ${el.clientWidth})`);
      if (box.left < panel.left - 0.5 || box.right > panel.right + 0.5) out.push(`${name} leaves the panel (${box.left}-${box.right} of ${panel.left}-${panel.right})`);
    }
    if (document.documentElement.scrollWidth > window.innerWidth) out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${window.innerWidth})`);
    return out;
  });
  expect(problems).toEqual([]);
}

async function axe(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('kb-voice-widget').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`), `axe (${state})`).toEqual([]);
}

test('language="ja": Japanese words, English data-status, a call, Intl latency, fits at 360 px, axe clean', async ({ page, stack, emu }) => {
  void emu;
  test.setTimeout(90_000);
  const widget = await openWidgetPage(page, stack, { page: withLanguage('ja') });
  const status = widget.getByTestId('call-status');
  await expect(widget.getByTestId('call-start')).toHaveText('通話を開始');
  await expect(status).toHaveText('待機中');
  await expect(status).toHaveAttribute('data-status', 'idle');
  await expect(widget.getByTestId('text-input')).toHaveAttribute('placeholder', '質問を入力…');
  await expect(widget.locator('.panel')).toHaveAttribute('lang', 'ja');
  await expectNoOverflow(widget);
  await axe(page, 'ja idle');

  await widget.getByTestId('call-start').click();
  await expect(status).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });
  await expect(status).toHaveText('通話中');
  await widget.getByTestId('text-input').fill('保証期間はどのくらいですか？');
  await widget.getByTestId('text-send').click();
  const answer = widget.locator('[data-testid="caption"][data-role="assistant"][data-final="true"]').first();
  await expect(answer).toContainText(/\S/, { timeout: 30_000 });
  await expect(widget.locator('[data-testid="caption"][data-role="user"] .who').first()).toHaveText('あなた：');
  await expect(answer.locator('.who')).toHaveText('アシスタント：');
  await expect(widget.getByTestId('latency')).toHaveText(/^直前の回答は質問の[\d.,]+\s?(ミリ秒|秒|ms|s)後に始まりました。$/);
  await expectNoOverflow(widget);
  await axe(page, 'ja connected');
  await widget.getByTestId('call-end').click();
  await expect(status).toHaveAttribute('data-status', 'ended', { timeout: 20_000 });
  await expect(status).toHaveText('終了');
});

test('English from the page, the page\u2019s own strings over it (long ones wrap inside), axe clean; a wrong ai-id explained in Japanese', async ({ page, stack, emu }) => {
  void emu;
  const widget = await openWidgetPage(page, stack, { page: withLanguage(null) }); // plain.html is <html lang="en">
  await expect(widget.getByTestId('call-start')).toHaveText('Start call');
  expect(await widget.evaluate((el: KbVoiceWidget) => el.uiLanguage)).toBe('en');
  await widget.evaluate((el: KbVoiceWidget) => {
    el.messages = {
      'button.start': 'Start a voice call with our assistant',
      'button.mute': 'Mute my microphone for now',
      'status.idle': 'ready when you are',
      title: 'Ask the Hikari Home assistant anything',
    };
  });
  await expect(widget.getByTestId('call-start')).toHaveText('Start a voice call with our assistant');
  await expect(widget.getByTestId('call-end')).toHaveText('End call'); // not overridden: built in
  await expect(widget.getByTestId('call-status')).toHaveText('ready when you are');
  await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'idle');
  await expectNoOverflow(widget);
  await axe(page, 'en idle, overridden');

  // The page switches to Japanese: the widget follows (its own strings stay over the Japanese table).
  await page.evaluate(() => (document.documentElement.lang = 'ja'));
  await expect(widget.getByTestId('call-end')).toHaveText('通話を終了');
  await expect(widget.getByTestId('call-start')).toHaveText('Start a voice call with our assistant');
  await widget.evaluate((el: KbVoiceWidget) => {
    el.messages = {};
    el.setAttribute('ai-id', '');
  });
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('error')).toHaveText('ウィジェットに ai-id 属性がありません。ページの作成者がアシスタントの ID を設定する必要があります。');
  await expectNoOverflow(widget);
  await axe(page, 'ja failed');
});

/** Computed styles inside the widget that a page's inherited styles would change. */
function insideStyles(widget: Locator) {
  return widget.evaluate((host) => {
    const root = host.shadowRoot!;
    const props = ['text-align', 'font-family', 'font-size', 'font-style', 'letter-spacing', 'word-spacing', 'line-height', 'color', 'text-transform', 'white-space', 'direction', 'text-indent', 'visibility'];
    const out: Record<string, Record<string, string>> = {};
    for (const selector of ['.title', '.captions', '[data-testid="call-start"]', '[data-testid="mic-status"]', '.latency', '.error']) {
      const style = getComputedStyle(root.querySelector(selector)!);
      out[selector] = Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
    }
    out.box = { width: String(root.querySelector('.panel')!.getBoundingClientRect().width), height: String(root.querySelector('.panel')!.getBoundingClientRect().height) };
    return out;
  });
}

test('a hostile page stylesheet does not reach inside (inherited properties reset at the host)', async ({ page, stack, emu }) => {
  void emu;
  const clean = await insideStyles(await openWidgetPage(page, stack));
  const hostile = `<style>
    #root { text-align: center; }
    body { font: italic 30px/3 serif; letter-spacing: 5px; word-spacing: 12px; color: #c00; text-transform: uppercase;
      white-space: nowrap; direction: rtl; text-indent: 40px; }
  </style>`;
  const widget = await openWidgetPage(page, stack, {
    page: (html) => html.replace('</head>', `${hostile}</head>`).replace('<main>', '<main id="root">'),
  });
  expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).textAlign)).toBe('center'); // the page is hostile indeed
  expect(await insideStyles(widget)).toEqual(clean);
  expect(clean['.captions']!['text-align']).toBe('start');
});
