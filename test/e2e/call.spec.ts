import { expect, snap, snapForReadme, test } from './fixtures.js';
import { askByText, byTestId, captureSessions, endCall, microphoneSpokeAgain, noTurnInProgress, startCall, timelineTexts } from './qa.js';

// The fake microphone loops one spoken question followed by silence: each loop is one voice turn.
test.use({ micFile: 'e2e-question.wav' });

test('full call: spoken and typed turns, mute, report with audio, rating, deletion', async ({ page, openDemo, emu, audit, request }, testInfo) => {
  test.setTimeout(150_000);
  await captureSessions(page);
  await openDemo('?lang=en');
  await expect(byTestId(page, 'ai-id')).toHaveText(emu.robotId);
  await expect(byTestId(page, 'warmup-status')).toHaveText('pending');

  await startCall(page);
  await expect(byTestId(page, 'warmup-status')).toHaveText('ok', { timeout: 15_000 });
  const sessionId = (await byTestId(page, 'session-id').innerText()).trim();
  expect(sessionId).not.toBe('—');

  // Two spoken turns, recognised from the fake microphone.
  const voiceTurns = page.locator('[data-testid="turn"][data-input="voice"]');
  await expect(voiceTurns).toHaveCount(2, { timeout: 60_000 });
  for (const turn of await voiceTurns.all()) {
    await expect(turn.getByTestId('turn-question')).not.toBeEmpty();
    await expect(turn.getByTestId('turn-answer')).not.toBeEmpty();
    await expect(turn.getByTestId('turn-message-id')).toHaveText(/^[0-9a-f-]{36}$/);
    expect(Number(await turn.getByTestId('turn-latency').getAttribute('data-ms'))).toBeGreaterThan(0);
  }
  // The meters saw the speech going out and the spoken answers coming in.
  expect(Number(await byTestId(page, 'input-level').getAttribute('data-peak'))).toBeGreaterThan(0.05);
  expect(Number(await byTestId(page, 'output-level').getAttribute('data-peak'))).toBeGreaterThan(0.05);
  const timeline = await timelineTexts(page);
  expect(timeline.some((t) => t.includes('you started speaking'))).toBe(true);
  expect(timeline.some((t) => t.includes('assistant started speaking'))).toBe(true);
  await snap(page, testInfo, 'call-connected-turns');

  // Mute: no speech reaches the service while muted, though the microphone file keeps looping.
  await byTestId(page, 'mute-toggle').click();
  await expect(byTestId(page, 'mic-status')).toHaveText('muted');
  await expect(byTestId(page, 'mute-toggle')).toHaveAttribute('aria-pressed', 'true');
  // A turn that was already under way finishes before counting (a barrier, not a guess of its length).
  await noTurnInProgress(page);
  const voiceBefore = await voiceTurns.count();
  const speechStartsBefore = (await timelineTexts(page)).filter((t) => t.includes('you started speaking')).length;

  // A typed turn while muted.
  await askByText(page, 'How long is the warranty?');
  const typed = page.locator('[data-testid="turn"][data-input="text"]').last();
  await expect(typed.getByTestId('turn-question')).toHaveText('How long is the warranty?');
  await expect(typed.getByTestId('turn-answer')).not.toBeEmpty();

  // The looping microphone file speaks its question again (heard on the device itself): a live
  // microphone would have started a turn by now, so nothing new may have started.
  await microphoneSpokeAgain(page);
  expect(await voiceTurns.count()).toBe(voiceBefore);
  expect((await timelineTexts(page)).filter((t) => t.includes('you started speaking')).length).toBe(speechStartsBefore);
  await byTestId(page, 'mute-toggle').click();
  await expect(byTestId(page, 'mic-status')).toHaveText('live');

  // Rate the first answer good (E6 through the relay) and check the service stored it.
  const first = page.getByTestId('turn').first();
  const messageId = (await first.getAttribute('data-message-id'))!;
  await first.getByTestId('rate-up').click();
  await expect(first.getByTestId('rating-status')).toHaveText('rated good (saved)');
  const stored = await emu.get(`/v1/${emu.robotId}/session.messages/${messageId}`);
  expect(stored.status).toBe(200);
  expect(stored.body.rating).toBe(1);

  await endCall(page);
  const turnCount = await page.getByTestId('turn').count();
  expect(turnCount).toBeGreaterThanOrEqual(3);

  // The report: usage and cost tables, one latency bar per turn, playable and downloadable audio.
  await expect(byTestId(page, 'report')).toHaveAttribute('data-loaded', 'true', { timeout: 20_000 });
  await expect(byTestId(page, 'report-usage')).toBeVisible();
  await expect(byTestId(page, 'report-usage')).toContainText('Turns');
  await expect(byTestId(page, 'report-cost')).toContainText('Total cost');
  await expect(page.getByTestId('latency-bar')).toHaveCount(turnCount);
  const segments = page.getByTestId('audio-segment');
  expect(await segments.count()).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId('audio-duration').first()).toHaveText(/\d+(\.\d+)? (ms|s)$/);
  for (const segment of await segments.all()) {
    const url = (await segment.getAttribute('src'))!;
    expect(new URL(url).origin).toBe(new URL(emu.url).origin);
    // Downloadable with a plain GET and no key: a WAV file.
    const res = await request.get(url);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('audio/wav');
    expect((await res.body()).subarray(0, 4).toString('latin1')).toBe('RIFF');
  }
  // Playable in the page: the browser decodes it and finds the announced duration.
  const first_ = segments.first();
  const announcedMs = Number(await first_.getAttribute('data-duration-ms'));
  const decodedS = await first_.evaluate(async (audio: HTMLAudioElement) => {
    audio.preload = 'auto';
    audio.load();
    await new Promise<void>((resolve, reject) => {
      audio.addEventListener('loadedmetadata', () => resolve(), { once: true });
      audio.addEventListener('error', () => reject(new Error(`audio error ${audio.error?.code}`)), { once: true });
    });
    return audio.duration;
  });
  expect(Math.abs(decodedS * 1000 - announcedMs)).toBeLessThan(100);
  await snap(page, testInfo, 'call-report');
  await snapForReadme(page);

  // Delete the session (E15) and see it gone: no messages (E19), not listed by usage (E13).
  await byTestId(page, 'session-delete').click();
  await expect(byTestId(page, 'delete-status')).toHaveAttribute('data-state', 'gone', { timeout: 15_000 });
  const messages = await emu.get(`/v1/${emu.robotId}/session.messages?session_id=${encodeURIComponent(sessionId)}`);
  if (messages.status === 200) expect(messages.body.items).toEqual([]);
  else expect(messages.status).toBe(404);
  const usage = await emu.get(`/v1/robots/${emu.robotId}/realtime-usage`);
  expect(usage.status).toBe(200);
  expect(usage.body.sessions.map((s: { session_id: string }) => s.session_id)).not.toContain(sessionId);
  await snap(page, testInfo, 'session-deleted');

  // The audit (auto fixture) then checks every request; make sure it had real traffic to judge.
  await audit.settle();
  expect(audit.relayRequests.length).toBeGreaterThan(5);
  expect(audit.presigned.size).toBeGreaterThanOrEqual(1);
});
