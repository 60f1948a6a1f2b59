import { expect, type Locator, type Page } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DemoStack } from '../../scripts/demo-stack.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD = resolve(ROOT, 'dist/kb-voice-widget.js');

/**
 * Opens test/fixtures/widget/plain.html (`options.page` may rewrite it: another language, a hostile
 * stylesheet), a plain HTML page whose only script is the widget's
 * one-file build (dist/kb-voice-widget.js), served as static files from the demo stack's origin
 * (where /api/voice is the relay), as any static host would serve them.
 */
export async function openWidgetPage(page: Page, stack: DemoStack, options: { aiId?: string; page?: (html: string) => string } = {}): Promise<Locator> {
  if (!existsSync(BUILD)) throw new Error('dist/kb-voice-widget.js is missing: run npm run build first');
  const origin = new URL(stack.pageUrl).origin;
  const plain = readFileSync(resolve(ROOT, 'test/fixtures/widget/plain.html'), 'utf8')
    .replace('{{AI_ID}}', options.aiId ?? stack.emulator.fixtures.robotId);
  const html = options.page ? options.page(plain) : plain;
  const files: Record<string, { contentType: string; body: string | Buffer }> = {
    '/static/index.html': { contentType: 'text/html; charset=utf-8', body: html },
    '/static/kb-voice-widget.js': { contentType: 'text/javascript; charset=utf-8', body: readFileSync(BUILD) },
  };
  await page.route(`${origin}/static/**`, (route) => {
    const file = files[new URL(route.request().url()).pathname];
    return file ? route.fulfill({ status: 200, ...file }) : route.fulfill({ status: 404, body: 'not found' });
  });
  await page.goto(`${origin}/static/index.html`);
  const widget = page.locator('kb-voice-widget');
  await expect(widget).toBeAttached();
  await page.waitForFunction(() => customElements.get('kb-voice-widget') !== undefined && document.querySelector('kb-voice-widget')?.shadowRoot);
  return widget;
}

/** The `data-testid` of the element focused inside the widget's shadow root (null when focus is elsewhere). */
export function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const host = document.activeElement;
    if (host?.tagName !== 'KB-VOICE-WIDGET') return null;
    const inner = host.shadowRoot?.activeElement as HTMLElement | null | undefined;
    return inner?.dataset.testid ?? inner?.getAttribute('aria-label') ?? null;
  });
}

/** Records the widget's DOM events (type and a summary of `detail`) in `window.widgetEvents`. */
export async function recordWidgetEvents(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { widgetEvents: Array<{ type: string; detail: unknown }> };
    w.widgetEvents = [];
    const el = document.querySelector('kb-voice-widget')!;
    for (const type of ['session', 'state', 'turn', 'transcript', 'mute', 'error']) {
      el.addEventListener(type, (event) => {
        const detail = (event as CustomEvent).detail as Record<string, any>;
        const summary = type === 'state' ? detail.state.status
          : type === 'turn' ? { input: detail.input, question: detail.question, answer: detail.answer, firstResponseMs: detail.firstResponseMs }
          : type === 'error' ? detail.code
          : type === 'session' ? typeof detail.getSnapshot
          : type === 'mute' ? detail : detail.role;
        w.widgetEvents.push({ type, detail: summary });
      });
    }
  });
}

export function widgetEvents(page: Page): Promise<Array<{ type: string; detail: any }>> {
  return page.evaluate(() => (window as unknown as { widgetEvents: Array<{ type: string; detail: unknown }> }).widgetEvents);
}
