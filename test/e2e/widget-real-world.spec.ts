/**
 * The widget under real-world conditions (issue 27), on the one-file build: when the microphone is
 * refused it offers to go on by typing, and during a call its device menu lists the microphones and
 * speakers and follows device changes.
 */
import { expect, test } from './fixtures.js';
import { RealWorldLab } from './real-world/lab.js';
import { openWidgetPage } from './widget-page.js';

test('microphone refused: "Continue by typing" starts a text-only call that answers', async ({ page, stack, emu }) => {
  void emu;
  const lab = await RealWorldLab.install(page);
  await page.addInitScript(() => {
    const w = window as { gumCalls?: number };
    w.gumCalls = 0;
    navigator.mediaDevices.getUserMedia = () => {
      w.gumCalls!++;
      return Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    };
  });
  const widget = await openWidgetPage(page, stack);
  await expect(widget.getByTestId('type-instead')).toBeHidden();
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('failed', { timeout: 20_000 });
  await expect(widget.getByTestId('error')).toContainText('Microphone access was refused');

  await widget.getByTestId('type-instead').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  await expect(widget.getByTestId('type-instead')).toBeHidden();
  await expect(widget.getByTestId('error')).toBeHidden();
  await expect(widget.getByTestId('mute-toggle')).toBeDisabled(); // nothing to mute
  await expect(widget.getByTestId('mic-select')).toBeHidden();
  await widget.getByTestId('text-input').fill('How long is the warranty?');
  await widget.getByTestId('text-send').click();
  await expect(widget.locator('[data-testid="caption"][data-role="assistant"][data-final="true"]')).toContainText('two-year', { timeout: 30_000 });
  // Only the refused start asked for the microphone; only the text-only call made a connection.
  expect(await page.evaluate(() => (window as { gumCalls?: number }).gumCalls)).toBe(1);
  expect((await lab.counts()).peerConnections).toBe(1);
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
});

test('the device menu lists inputs and outputs during a call and follows devicechange', async ({ page, stack, emu }) => {
  void emu;
  const lab = await RealWorldLab.install(page);
  const widget = await openWidgetPage(page, stack);
  await expect(widget.getByTestId('mic-select')).toBeHidden();
  await widget.getByTestId('call-start').click();
  await expect(widget.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
  await expect(widget.getByTestId('mic-select')).toBeVisible();
  expect(await widget.getByTestId('mic-select').locator('option').count()).toBeGreaterThan(0);

  await lab.setDevices([
    { deviceId: 'default', kind: 'audioinput', label: 'Default microphone' },
    { deviceId: 'usb', kind: 'audioinput', label: 'USB microphone' },
    { deviceId: '', kind: 'audiooutput', label: 'System speakers' },
  ]);
  await expect(widget.getByTestId('mic-select').locator('option')).toHaveText(['Default microphone', 'USB microphone']);
  await expect(widget.getByTestId('speaker-select').locator('option')).toHaveText(['System speakers']);
  // Choosing the system default output works through setSinkId; the call goes on.
  await widget.getByTestId('speaker-select').selectOption('');
  await expect(widget.getByTestId('error')).toBeHidden();
  await expect(widget.getByTestId('call-status')).toHaveText('connected');
  await widget.getByTestId('call-end').click();
  await expect(widget.getByTestId('mic-select')).toBeHidden();
});
