import { expect, snap, test } from './fixtures.js';
import { askByText, byTestId, endCall, startCall } from './qa.js';

// A silent microphone: these calls are driven by typed questions only.
test.use({ micFile: 'e2e-silence.wav' });

test.describe('warmup faults still give a working call', () => {
  test('warmup failure: status failed, the call works and the first turn pays the agent build', async ({ page, openDemo, emu }, testInfo) => {
    await emu.faults({ warmup: 'fail' });
    await openDemo('?lang=en');
    await startCall(page);
    await expect(byTestId(page, 'warmup-status')).toHaveText('failed', { timeout: 15_000 });
    await expect(byTestId(page, 'call-error')).toBeHidden();

    await askByText(page, 'What is the battery life of the device?');
    const turn = page.getByTestId('turn').first();
    await expect(turn.getByTestId('turn-answer')).not.toBeEmpty();
    // The robot stayed cold, so this turn built the agent (300 ms in the test stack).
    expect(Number(await turn.getAttribute('data-agent-build-ms'))).toBeGreaterThan(0);
    await snap(page, testInfo, 'warmup-failed-call');
    await endCall(page);
  });

  test('warmup hang: status never turns ok, the call still answers', async ({ page, openDemo, emu }, testInfo) => {
    await emu.faults({ warmup: 'hang' });
    await openDemo('?lang=en');
    await startCall(page);
    await expect(byTestId(page, 'warmup-status')).not.toHaveText('ok');

    await askByText(page, 'How long is the warranty?');
    await expect(page.getByTestId('turn').first().getByTestId('turn-answer')).not.toBeEmpty();
    await expect(byTestId(page, 'warmup-status')).not.toHaveText('ok');
    await expect(byTestId(page, 'call-status')).toHaveText('connected');
    await snap(page, testInfo, 'warmup-hang-call');
    await endCall(page);
  });

  test('warmup ok: the first turn pays no agent build', async ({ page, openDemo }) => {
    await openDemo('?lang=en');
    await startCall(page);
    await expect(byTestId(page, 'warmup-status')).toHaveText('ok', { timeout: 15_000 });
    await askByText(page, 'How do I charge it?');
    expect(Number(await page.getByTestId('turn').first().getAttribute('data-agent-build-ms'))).toBe(0);
    await endCall(page);
  });
});
