import { expect, snap, test } from './fixtures.js';
import { byTestId } from './qa.js';

test.describe('responsive layout', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('a phone-sized window shows every control without horizontal scrolling', async ({ page, openDemo }, testInfo) => {
    await openDemo();
    for (const id of ['call-start', 'call-end', 'mute-toggle', 'call-status', 'warmup-status', 'text-input', 'text-send']) {
      await expect(byTestId(page, id)).toBeVisible();
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Default robot and language come from the demo stack when the URL names none.
    await expect(byTestId(page, 'language')).toHaveText('ja');
    await snap(page, testInfo, 'phone-idle');
  });
});
