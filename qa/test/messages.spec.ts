import { expect, test } from 'kb-voice-qa';

// A failed expectation says what was heard: the actual answer, the transcript so far, the latency.
// voice: { emulator: { agentBuildMs: 300 }, language: 'en' } for the whole project (playwright.config.ts).

test('a failing toAnswer shows the answer, the transcript so far and the latency', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.type('How long is the warranty?');
  const error = (await expect(call).toAnswer(/flux capacitor/i, { within: 20_000 }).catch((e: unknown) => e)) as Error;
  expect(error).toBeInstanceOf(Error);
  const heard = call.lastTurn!;
  expect(heard.answer).not.toMatch(/flux capacitor/i);
  expect(error.message).toContain('an answer matching /flux capacitor/i within 20000 ms');
  expect(error.message).toContain(`Heard: ${JSON.stringify(heard.answer.replace(/\s+/g, ' ').trim()).slice(0, 40)}`);
  expect(error.message).toContain('Transcript so far:');
  expect(error.message).toContain('caller (text): "How long is the warranty?"');
  expect(error.message).toMatch(/first response (\d+ ms|not measured), perceived (\d+ ms|not measured)/);

  // No turn at all: the message says so and shows the call's state.
  const none = (await expect(call).toAnswer(/anything/, { within: 300 }).catch((e: unknown) => e)) as Error;
  expect(none.message).toContain('no finished turn within 300 ms');
  expect(none.message).toContain('Call: connected');

  // toRespondWithin names the latency it measured.
  const slow = (await expect(call).toRespondWithin(0).catch((e: unknown) => e)) as Error;
  expect(slow.message).toMatch(/Received: (first response|perceived latency) \d+ ms/);
  // toHaveQuality: over loopback a kb-voice that measures quality reaches `fair` at least; one that
  // does not (no `quality` in its snapshot) fails saying so instead of waiting.
  if (call.session.quality !== undefined) {
    await expect(call).toHaveQuality('fair');
  } else {
    const unmeasured = (await expect(call).toHaveQuality('fair').catch((e: unknown) => e)) as Error;
    expect(unmeasured.message).toContain('does not measure call quality');
  }
  await call.end();
});
