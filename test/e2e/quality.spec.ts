import { expect, test } from './fixtures.js';
import { byTestId, endCall, startCall } from './qa.js';
import { openWidgetPage } from './widget-page.js';

// Every call of this file goes through the network lab's poor-3G profile (650 ms RTT, 6 % bursty
// loss): the emulator puts its media behind the lab, so the page needs nothing special.
test.use({ micFile: 'e2e-question.wav', network: '3g-poor' });

test('QA page: the quality pill turns poor, the chart plots RTT, loss and MOS, voice turns have a perceived latency', async ({ page, openDemo }) => {
  test.setTimeout(120_000);
  await openDemo('?lang=en');
  await expect(byTestId(page, 'quality-level')).toHaveAttribute('data-level', 'unknown');
  await startCall(page);
  await expect(byTestId(page, 'quality-level')).toHaveAttribute('data-level', 'poor', { timeout: 45_000 });
  await expect(byTestId(page, 'quality-level')).toHaveText(/^poor · MOS \d\.\d$/);

  // A spoken question heard by the client and answered audibly has its perceived latency (the first
  // may have none: the looping microphone can start speaking before the level meters run).
  const perceived = page.locator('[data-testid="turn"][data-input="voice"] [data-testid="turn-perceived"]').first();
  await expect(perceived).toBeAttached({ timeout: 60_000 });
  expect(Number(await perceived.getAttribute('data-ms'))).toBeGreaterThan(0);

  await endCall(page);
  const chart = byTestId(page, 'quality-svg');
  await expect(chart).toBeVisible();
  expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(3);
  await expect(chart).toHaveAttribute('aria-label', /^Call quality over \d+ s: now \w+/);
  // the lab's 650 ms round trip and its loss
  expect(Number(await byTestId(page, 'quality-rttMs').getAttribute('data-last'))).toBeGreaterThan(400);
  expect(Number(await byTestId(page, 'quality-packetLossPct').getAttribute('data-max'))).toBeGreaterThan(0);
  const mos = byTestId(page, 'quality-mos').locator('polyline');
  await expect(mos.first()).toBeAttached();
});

test('widget: a quality indicator with an accessible label shows while the call is poor', async ({ page, stack }) => {
  test.setTimeout(120_000);
  const widget = await openWidgetPage(page, stack);
  const indicator = widget.getByTestId('call-quality');
  await expect(indicator).toBeHidden();
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  await expect(indicator).toBeVisible({ timeout: 45_000 });
  await expect(indicator).toHaveAccessibleName('Call quality: poor. Your voice or the answer may break up.');
  await expect(indicator).toHaveAttribute('data-level', 'poor');
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
  await expect(indicator).toBeHidden();
});
