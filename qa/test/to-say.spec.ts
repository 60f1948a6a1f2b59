import { expect, test } from 'kb-voice-qa';

// toSay: the answer as heard. A long answer passes once its words came, before the turn finishes
// (toAnswer waits for the finished turn); the heard turn is taken, so toAnswer is about the next.

test('toSay passes on the words of a long answer while it is still spoken', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.type('Can I descale with vinegar?');
  await expect(call).toSay(/citric acid/i, { within: 20_000 });
  // Heard before the end: the turn has not finished (its answer takes seconds to speak).
  expect(call.turns).toHaveLength(0);
  // A new question cuts the answer; toAnswer passes over the heard turn to the new one.
  await call.type('How much do replacement filters cost?');
  await expect(call).toAnswer('980 yen', { within: 30_000 });
  await call.end();
});

test('a failing toSay says what was heard', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.type('How much do replacement filters cost?');
  const error = (await expect(call).toSay(/flux capacitor/i, { within: 8_000 }).catch((e: unknown) => e)) as Error;
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toContain('an answer saying /flux capacitor/i within 8000 ms');
  expect(error.message).toContain('980 yen');
  await call.end();
});
