import { AxeBuilder } from '@axe-core/playwright'; // named: 4.13's types are CommonJS under NodeNext
import type { Page, TestInfo } from '@playwright/test';
import { expect, snap, test } from './fixtures.js';
import { focusedTestId, openWidgetPage } from './widget-page.js';

// Independent calls (each its own page; every worker has its own emulator): spread over the
// workers instead of one after another, so this long file does not decide when the e2e step ends.
test.describe.configure({ mode: 'parallel' });

// Typed questions only: the fake microphone plays silence.
test.use({ micFile: 'e2e-silence.wav' });

const UNKNOWN_ROBOT = '00000000-0000-4000-8000-000000000000';

/** axe-core over the widget (its open shadow root included); fails on any serious or critical violation. */
async function audit(page: Page, testInfo: TestInfo, state: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('kb-voice-widget').analyze();
  const summary = results.violations.map((v) => `${v.impact ?? 'unknown'} ${v.id}: ${v.help} (${v.nodes.length} node(s))`);
  await testInfo.attach(`axe-${state}.json`, { body: JSON.stringify({ violations: summary, passes: results.passes.length, incomplete: results.incomplete.map((v) => v.id) }, null, 2), contentType: 'application/json' });
  console.log(`axe (${state}): ${results.passes.length} rules passed (${results.passes.map((p) => p.id).join(', ')}), ${results.violations.length} violation(s)${summary.length ? `: ${summary.join('; ')}` : ''}, incomplete: ${results.incomplete.map((v) => v.id).join(', ') || 'none'}`);
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`), `axe in state ${state}`).toEqual([]);
}

/** Presses Tab (or Shift+Tab) and says which widget control has the focus then. */
async function tab(page: Page, back = false): Promise<string | null> {
  await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  return focusedTestId(page);
}

/** The focused control shows a focus ring (:focus-visible outline). */
async function expectVisibleFocus(page: Page): Promise<void> {
  const outline = await page.evaluate(() => {
    const inner = document.activeElement?.shadowRoot?.activeElement;
    if (!inner) return null;
    const style = getComputedStyle(inner);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth), visible: inner.matches(':focus-visible') };
  });
  expect(outline).not.toBeNull();
  expect(outline!.visible).toBe(true);
  expect(outline!.style).not.toBe('none');
  expect(outline!.width).toBeGreaterThanOrEqual(2);
}

test('keyboard alone: start, mute, ask, end, with a visible focus ring and focus kept in the widget', async ({ page, stack, emu }) => {
  void emu;
  const widget = await openWidgetPage(page, stack);
  // Idle: the disabled and hidden controls are skipped.
  expect(await tab(page)).toBe('call-start');
  await expectVisibleFocus(page);
  await page.keyboard.press('Enter');
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  // Start became disabled: the focus moved on to End instead of falling back to the page.
  expect(await focusedTestId(page)).toBe('call-end');
  await expect(widget.getByTestId('mic-select')).toBeVisible(); // the device menu, once the devices are listed
  expect(await tab(page)).toBe('mute-toggle');
  await expectVisibleFocus(page);
  await page.keyboard.press('Space');
  await expect(widget.getByTestId('mute-toggle')).toHaveAttribute('aria-pressed', 'true');
  // The device menu (issue 27): the microphone list, then the speakers where the browser lists them.
  const menu: string[] = [];
  let next = await tab(page);
  for (; next === 'mic-select' || next === 'speaker-select'; next = await tab(page)) menu.push(next);
  expect(menu[0]).toBe('mic-select');
  expect(next).toBe('Captions'); // the scrollable captions log is focusable, to scroll it by keyboard
  expect(await tab(page)).toBe('text-input');
  await expectVisibleFocus(page);
  await page.keyboard.type('How long is the warranty?');
  await page.keyboard.press('Enter');
  await expect(widget.locator('[data-testid="caption"][data-role="assistant"][data-final="true"]')).toContainText('two-year', { timeout: 30_000 });
  expect(await focusedTestId(page)).toBe('text-input');
  // Under the answer: its Sources toggle (once read) and the thumbs, between the captions log and the input.
  await expect(widget.getByTestId('sources-toggle')).toBeVisible({ timeout: 10_000 });
  for (const control of ['rate-down', 'rate-up', 'sources-toggle']) expect(await tab(page, true)).toBe(control);
  expect(await tab(page, true)).toBe('Captions');
  for (const select of [...menu].reverse()) expect(await tab(page, true)).toBe(select);
  expect(await tab(page, true)).toBe('mute-toggle');
  expect(await tab(page, true)).toBe('call-end');
  await page.keyboard.press('Enter');
  await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
  expect(await focusedTestId(page)).toBe('call-start');
  await expectVisibleFocus(page);
});

test('prefers-reduced-motion turns the animations off', async ({ page, stack }) => {
  const widget = await openWidgetPage(page, stack);
  const transition = () => widget.locator('[part="meter-bar"]').evaluate((bar) => getComputedStyle(bar).transitionDuration);
  expect(await transition()).toBe('0.09s');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await transition()).toBe('0s');
});

test.describe('phone viewport', () => {
  test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

  test('every control fits, no horizontal scrolling, also with a long unbroken question', async ({ page, stack, emu }, testInfo) => {
    void emu;
    const widget = await openWidgetPage(page, stack);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    for (const id of ['call-start', 'call-end', 'mute-toggle', 'call-status', 'text-input', 'text-send']) {
      await expect(widget.getByTestId(id)).toBeInViewport({ ratio: 1 });
    }
    expect(await overflow()).toBeLessThanOrEqual(0);
    await widget.getByTestId('call-start').tap();
    await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
    const long = `How long is the warranty? ${'x'.repeat(300)}`;
    await widget.getByTestId('text-input').fill(long);
    await widget.getByTestId('text-send').tap();
    await expect(widget.locator('[data-testid="caption"][data-role="user"][data-input="text"]')).toContainText('xxxx', { timeout: 30_000 });
    await expect(widget.locator('[data-testid="caption"][data-role="assistant"][data-final="true"]')).not.toHaveCount(0, { timeout: 30_000 });
    expect(await overflow()).toBeLessThanOrEqual(0);
    const box = (await widget.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await snap(page, testInfo, 'widget-phone');
    await widget.getByTestId('call-end').tap();
    await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
  });
});

test('accessibility audit (axe) in the idle, connected and error states', async ({ page, stack, emu }, testInfo) => {
  void emu;
  // Four axe audits (see widget-ptt.spec.ts's phone-width audit): CPU-bound, past 60 s under a busy core.
  test.slow();
  const widget = await openWidgetPage(page, stack);
  // The audit reaches into the shadow root: an unlabelled button planted there is reported.
  await widget.evaluate((el) => el.shadowRoot!.append(Object.assign(document.createElement('button'), { id: 'probe' })));
  const probe = await new AxeBuilder({ page }).include('kb-voice-widget').analyze();
  expect(probe.violations.map((v) => v.id)).toContain('button-name');
  await widget.evaluate((el) => el.shadowRoot!.getElementById('probe')!.remove());
  await audit(page, testInfo, 'idle');

  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  await widget.getByTestId('text-input').fill('How long is the warranty?');
  await widget.getByTestId('text-send').click();
  await expect(widget.locator('[data-testid="caption"][data-role="assistant"][data-final="true"]')).toContainText('two-year', { timeout: 30_000 });
  await widget.getByTestId('mute-toggle').click();
  await audit(page, testInfo, 'connected');
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });

  await widget.evaluate((el, robot) => el.setAttribute('ai-id', robot), UNKNOWN_ROBOT);
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('failed', { timeout: 20_000 });
  await expect(widget.getByTestId('error')).toBeVisible();
  await audit(page, testInfo, 'error');
});

test.describe('errors in words, with what to do', () => {
  const cases: Array<{ name: string; setup?: (page: Page) => Promise<unknown>; aiId?: string; words: RegExp; code: string }> = [
    {
      name: 'microphone denied',
      setup: (page) => page.addInitScript(() => {
        navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
      }),
      words: /Microphone access was refused\. Allow the microphone for this site/,
      code: 'microphone_denied',
    },
    {
      name: 'WebRTC unsupported',
      setup: (page) => page.addInitScript(() => {
        delete (window as { RTCPeerConnection?: unknown }).RTCPeerConnection;
      }),
      words: /This browser cannot make voice calls \(no WebRTC\)\. Open this page in a current/,
      code: 'webrtc_unsupported',
    },
    {
      name: 'service unavailable',
      setup: (page) => page.route('**/api/voice/v1/robots/*/realtime/sessions', (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ detail: 'maintenance' }) })),
      words: /The voice service is unavailable right now\. Try again in a minute\./,
      code: 'service_unavailable',
    },
    { name: 'assistant not found', aiId: UNKNOWN_ROBOT, words: /This assistant was not found\. The page.s author should check the widget.s ai-id attribute\./, code: 'not_found' },
  ];
  for (const c of cases) {
    test(c.name, async ({ page, stack, emu }) => {
      void emu;
      await c.setup?.(page);
      const widget = await openWidgetPage(page, stack, c.aiId ? { aiId: c.aiId } : {});
      // Listening before the click (awaited: an evaluate left pending raced the click, and a call that
      // fails at once could fire its error before the listener was there).
      await widget.evaluate((el) => {
        const seen: string[] = ((el as unknown as { errorCodes: string[] }).errorCodes = []);
        el.addEventListener('error', (e) => seen.push((e as CustomEvent<{ code: string }>).detail.code));
      });
      await widget.getByTestId('call-start').click();
      await expect(widget.getByTestId('call-status')).toHaveText('failed', { timeout: 20_000 });
      await expect(widget.getByTestId('error')).toBeVisible();
      await expect(widget.getByTestId('error')).toHaveText(c.words);
      await expect(widget.getByTestId('error')).toHaveAttribute('role', 'alert');
      await expect.poll(() => widget.evaluate((el) => (el as unknown as { errorCodes: string[] }).errorCodes)).toEqual([c.code]);
      // It can be tried again; nothing pretends to be live.
      await expect(widget.getByTestId('call-start')).toBeEnabled();
      await expect(widget.getByTestId('call-end')).toBeDisabled();
      await expect(widget.getByTestId('text-send')).toBeDisabled();
    });
  }
});

test('the page author\'s mistakes are named: no ai-id, a relay-url that is not a URL', async ({ page, stack }) => {
  const widget = await openWidgetPage(page, stack, { aiId: '' });
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('error')).toHaveText('The widget has no ai-id attribute: the page’s author must set it to the assistant’s id.');
  await expect(widget.getByTestId('call-status')).toHaveText('idle');
  // Fixing the attribute clears the complaint; a broken relay-url gets its own.
  await widget.evaluate((el, id) => el.setAttribute('ai-id', id), stack.emulator.fixtures.robotId);
  await expect(widget.getByTestId('error')).toBeHidden();
  await widget.evaluate((el) => el.setAttribute('relay-url', 'http://['));
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('error')).toContainText('relay-url attribute (http://[) is not a URL');
  await expect(widget.getByTestId('call-start')).toBeEnabled();
});

test('blocked playback: an "Enable sound" control that unblocks it', async ({ page, stack, emu }) => {
  void emu;
  // What the autoplay policy does without a user gesture: play() rejects with NotAllowedError,
  // until the page has one (here: until the visitor presses the widget's button).
  await page.addInitScript(() => {
    const play = HTMLMediaElement.prototype.play;
    let allowed = false;
    document.addEventListener('click', () => { allowed = true; }, { capture: true });
    HTMLMediaElement.prototype.play = function () {
      return allowed ? play.call(this) : Promise.reject(new DOMException('play() needs a user gesture', 'NotAllowedError'));
    };
  });
  const widget = await openWidgetPage(page, stack);
  // Start by keyboard would count as a gesture as well; block it until the sound button instead.
  await widget.evaluate((el: HTMLElement & { start(): Promise<void> }) => el.start());
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  const sound = widget.getByTestId('playback-resume');
  await expect(sound).toBeVisible();
  await expect(sound).toHaveText('Enable sound');
  await expect(widget.getByTestId('error')).toContainText('Press “Enable sound” to hear it.');
  await sound.click();
  await expect(sound).toBeHidden();
  await expect(widget.getByTestId('error')).toBeHidden();
  expect(await widget.evaluate((el: HTMLElement & { snapshot?: { playbackBlocked: boolean } }) => el.snapshot?.playbackBlocked)).toBe(false);
});

test('no CSS leaks either way: the widget adds no page stylesheet, page rules do not restyle it, custom properties and ::part() do', async ({ page, stack }) => {
  const widget = await openWidgetPage(page, stack);
  expect(await page.evaluate(() => document.styleSheets.length + document.adoptedStyleSheets.length)).toBe(0);
  const start = widget.getByTestId('call-start');
  const color = () => start.evaluate((node) => getComputedStyle(node).backgroundColor);
  const before = await color();
  await page.addStyleTag({ content: 'button { background: rgb(255, 0, 0) !important; } .primary { background: rgb(255, 0, 0) !important; }' });
  expect(await color()).toBe(before);
  await page.addStyleTag({ content: 'kb-voice-widget { --kbv-accent: rgb(0, 128, 0); }' });
  expect(await color()).toBe('rgb(0, 128, 0)');
  await page.addStyleTag({ content: 'kb-voice-widget::part(start-button) { background: rgb(0, 0, 128); }' });
  expect(await color()).toBe('rgb(0, 0, 128)');
});
