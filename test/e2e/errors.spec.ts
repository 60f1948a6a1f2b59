import { expect, snap, test } from './fixtures.js';
import { byTestId } from './qa.js';

test.describe('errors are shown in words', () => {
  test('microphone denied gives a clear failed state', async ({ page, openDemo, audit }, testInfo) => {
    // What the browser does when the user blocks the microphone: getUserMedia rejects with NotAllowedError.
    await page.addInitScript(() => {
      navigator.mediaDevices.getUserMedia = () =>
        Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    });
    await openDemo();
    await byTestId(page, 'call-start').click();
    await expect(byTestId(page, 'call-status')).toHaveText('failed', { timeout: 15_000 });
    await expect(byTestId(page, 'call-error')).toBeVisible();
    await expect(byTestId(page, 'call-error')).toContainText('Microphone access was denied');
    await expect(byTestId(page, 'timeline')).toContainText('failed');
    // The call can be retried, and nothing else is pretending to be live.
    await expect(byTestId(page, 'call-start')).toBeEnabled();
    await expect(byTestId(page, 'call-end')).toBeDisabled();
    await expect(byTestId(page, 'text-send')).toBeDisabled();
    // Denied before any offer: the page never tried to open a realtime session.
    await audit.settle();
    expect(audit.relayRequests.filter((r) => r.url.endsWith('/realtime/sessions'))).toEqual([]);
    await snap(page, testInfo, 'microphone-denied');
  });

  test('an unknown robot fails with the reason', async ({ page, openDemo }, testInfo) => {
    await openDemo('?ai_id=00000000-0000-4000-8000-000000000000&lang=en');
    await expect(byTestId(page, 'ai-id')).toHaveText('00000000-0000-4000-8000-000000000000');
    await byTestId(page, 'call-start').click();
    await expect(byTestId(page, 'call-status')).toHaveText('failed', { timeout: 15_000 });
    // A precise code (not_found), so the words say what is wrong and what to check.
    await expect(byTestId(page, 'call-error')).toContainText('does not know this robot');
    await snap(page, testInfo, 'unknown-robot');
  });

  test('a malformed language in the URL is explained and blocks the call', async ({ page, openDemo }) => {
    await openDemo('?lang=not%20a%20language');
    await expect(byTestId(page, 'call-error')).toContainText('is not a language code');
    await expect(byTestId(page, 'call-start')).toBeDisabled();
  });
});
