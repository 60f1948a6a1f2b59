import { expect, type Page } from '@playwright/test';

/** Small page-object helpers over the QA page's stable test ids (CONTRACT.md "Demo page"). */
export const byTestId = (page: Page, id: string) => page.getByTestId(id);

export async function startCall(page: Page): Promise<void> {
  await expect(page.getByTestId('call-status')).toHaveText('idle');
  await page.getByTestId('call-start').click();
  await expect(page.getByTestId('call-status')).toHaveText('connected', { timeout: 20_000 });
}

export async function endCall(page: Page): Promise<void> {
  await page.getByTestId('call-end').click();
  await expect(page.getByTestId('call-status')).toHaveText('ended', { timeout: 20_000 });
}

/** Types a question, sends it and waits for its finished text turn. */
export async function askByText(page: Page, text: string): Promise<void> {
  const before = await page.locator('[data-testid="turn"][data-input="text"]').count();
  await page.getByTestId('text-input').fill(text);
  await page.getByTestId('text-send').click();
  await expect(page.locator('[data-testid="turn"][data-input="text"]')).toHaveCount(before + 1, { timeout: 30_000 });
}

/** Texts of the timeline entries (for checking what happened, in order). */
export async function timelineTexts(page: Page): Promise<string[]> {
  return page.getByTestId('timeline-entry').allInnerTexts();
}
