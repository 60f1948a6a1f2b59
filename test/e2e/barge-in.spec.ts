import { expect, snap, test } from './fixtures.js';
import { byTestId, endCall, startCall, timelineTexts } from './qa.js';

// The question loops after a short pause, so the user speaks again while the assistant is answering.
test.use({ micFile: 'e2e-barge-in.wav' });

test('barge-in: speaking over the assistant interrupts its answer', async ({ page, openDemo }, testInfo) => {
  test.setTimeout(90_000);
  await openDemo('?lang=en');
  await startCall(page);
  const interrupted = page.locator('[data-testid="turn"][data-interrupted="true"]');
  await expect(interrupted.first()).toBeVisible({ timeout: 60_000 });
  await expect(interrupted.first().getByTestId('turn-interrupted')).toHaveText('interrupted');
  // The row says who cut the answer and when (issue 35).
  await expect(interrupted.first()).toHaveAttribute('data-interrupted-by', 'caller');
  await expect(interrupted.first().getByTestId('turn-cut')).toHaveAttribute('data-by', 'caller');
  await expect(interrupted.first().getByTestId('turn-cut')).toHaveText(/^Answer cut by the caller at \d\d:\d\d:\d\d\.\d{3}, (before any of it was heard|[\d.]+ m?s into its audio)\.$/);
  // The timeline shows the user starting to speak while the assistant was still speaking.
  const texts = await timelineTexts(page);
  const assistantStart = texts.findIndex((t) => t.includes('assistant started speaking'));
  expect(assistantStart).toBeGreaterThanOrEqual(0);
  const overlap = texts.slice(assistantStart).findIndex((t) => t.includes('you started speaking'));
  expect(overlap).toBeGreaterThan(0);
  await snap(page, testInfo, 'barge-in');
  await endCall(page);
  // The report counts the cut answers by who cut them (report().interruptions).
  const counts = page.getByTestId('report-interruptions');
  await expect(counts).toBeVisible({ timeout: 20_000 });
  const byCaller = Number((await counts.locator('tr', { hasText: 'Cut by the caller' }).locator('td').textContent())?.replace(/,/g, ''));
  expect(byCaller).toBeGreaterThanOrEqual(1);
});
