import { AxeBuilder } from '@axe-core/playwright';
import type { Locator } from '@playwright/test';
import type { KbVoiceWidget } from 'kb-voice/widget';
import { expect, test } from './fixtures.js';
import { openWidgetPage } from './widget-page.js';

// The widget's "Test my setup" (issue 48): kb-voice/check run from the one-file widget on a plain
// page, graded in the check-result panel (data-grade: the overall grade), in English and Japanese;
// a refused microphone and a relay that is down are bad and named. The microphone speaks.
// The network with UDP blocked is check-udp-blocked.spec.ts (a browser of its own).
test.use({ micFile: 'e2e-question.wav' });

const part = (widget: Locator, name: string) => widget.locator(`[data-testid="check-result"] li[data-part="${name}"]`);

test('en: every part good, the panel says so, axe clean, no call made', async ({ page, stack }) => {
  const widget = await openWidgetPage(page, stack);
  const button = widget.getByTestId('check-start');
  await expect(button).toHaveText('Test my setup');
  const requests: string[] = [];
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  await button.click();
  const panel = widget.getByTestId('check-result');
  await expect(panel).toHaveAttribute('data-grade', 'good', { timeout: 20_000 });
  await expect(panel.locator('.check-heading')).toHaveText('Your setup is ready for calls.');
  await expect(part(widget, 'microphone')).toHaveAttribute('data-code', 'microphone_ok');
  await expect(part(widget, 'microphone')).toContainText('Microphone: OK');
  await expect(part(widget, 'network')).toHaveAttribute('data-grade', 'good');
  await expect(part(widget, 'service')).toHaveAttribute('data-code', 'service_ok');
  await expect(part(widget, 'connection')).toHaveCount(0);
  await expect(button).toBeEnabled();
  // the relay and service were reached with the warmup alone: no session opened, nothing billed
  expect(requests.filter((r) => r.includes('/api/voice/'))).toEqual([`POST /api/voice/v1/robots/${stack.emulator.fixtures.robotId}/realtime/warmup`]);
  const axe = await new AxeBuilder({ page }).include('kb-voice-widget').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  // a call still starts afterwards (the check released the microphone)
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });
  await expect(button).toBeDisabled();
  await widget.getByTestId('call-end').click();
});

test('ja: Japanese words in the button and the panel', async ({ page, stack }) => {
  const widget = await openWidgetPage(page, stack, { page: (html) => html.replace(' language="en"', ' language="ja"') });
  await expect(widget.getByTestId('check-start')).toHaveText('接続をテスト');
  await widget.getByTestId('check-start').click();
  const panel = widget.getByTestId('check-result');
  await expect(panel).toHaveAttribute('data-grade', 'good', { timeout: 20_000 });
  await expect(panel.locator('.check-heading')).toHaveText('通話の準備ができています。');
  await expect(part(widget, 'microphone')).toContainText('マイク: OK');
  await expect(part(widget, 'service')).toContainText('音声サービスは応答しています。');
});

test('microphone denied: bad, the microphone named, in the panel and the event', async ({ page, stack }) => {
  await page.addInitScript(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
  });
  const widget = await openWidgetPage(page, stack);
  const detail = widget.evaluate((el: KbVoiceWidget) => new Promise((resolve) => el.addEventListener('check', (e) => resolve((e as CustomEvent).detail), { once: true })));
  await widget.getByTestId('check-start').click();
  await expect(widget.getByTestId('check-result')).toHaveAttribute('data-grade', 'bad', { timeout: 20_000 });
  await expect(part(widget, 'microphone')).toHaveAttribute('data-grade', 'bad');
  await expect(part(widget, 'microphone')).toContainText('The microphone was refused');
  expect(await detail).toMatchObject({ overall: 'bad', microphone: { grade: 'bad', code: 'microphone_denied' }, service: { grade: 'good' } });
});

test('relay down: bad, the service named', async ({ page, stack }) => {
  const widget = await openWidgetPage(page, stack);
  await page.route('**/api/voice/**', (route) => route.abort('connectionrefused'));
  await widget.getByTestId('check-start').click();
  await expect(widget.getByTestId('check-result')).toHaveAttribute('data-grade', 'bad', { timeout: 20_000 });
  await expect(part(widget, 'service')).toHaveAttribute('data-code', 'relay_unreachable');
  await expect(part(widget, 'service')).toContainText('The voice service cannot be reached');
  await expect(part(widget, 'microphone')).toHaveAttribute('data-grade', 'good');
});
