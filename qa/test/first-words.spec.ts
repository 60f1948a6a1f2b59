import { appendFile } from 'node:fs/promises';
import { expect, test, type Call } from 'kb-voice-qa';

// First words (issue 48): the caller asks the question at the click, while the call connects. On a
// slow network profile (default satellite: 650 ms RTT, ~4 s to connected) the service hears it from
// its first syllable with the pre-connect buffer, and misses its start without it. The figures are
// the service's: what it recorded of the question against what was said (qa/src/first-words.ts).
// bench/first-words.mjs runs this file per profile (KB_FIRST_WORDS_PROFILE) and collects the
// figures each test appends to KB_FIRST_WORDS_OUT.
const PROFILE = process.env.KB_FIRST_WORDS_PROFILE ?? 'satellite';
const QUESTION = 'Hi, how long is the warranty?';
test.use({ network: PROFILE });
// The slow profiles need more than the default 60 s: a connect of ~5 s, the buffer's chunks at the
// pace a lossy 650 ms path carries them, a 30 s wait for the recording, then the spoken answer.
// (Run out of time, the worker closes the relay under the recording's poll: 'fetch failed'.)
test.describe.configure({ timeout: 150_000 });

/** Appends the call's figures to KB_FIRST_WORDS_OUT when set; `measured` when the test has them already. */
async function record(call: Call, buffer: boolean, measured?: Awaited<ReturnType<Call['heardFromStart']>>): Promise<void> {
  const out = process.env.KB_FIRST_WORDS_OUT;
  if (!out) return;
  measured ??= await call.heardFromStart(buffer ? 30_000 : 8_000);
  await appendFile(out, `${JSON.stringify({ profile: PROFILE, buffer, ...measured })}\n`);
}

test('with the pre-connect buffer (default), a question said at the click reaches the service whole', async ({ voiceCall }) => {
  const call = await voiceCall.start({ sayAtStart: QUESTION });
  // Both begin at the click: the measure says which came first (a failure prints it).
  const measured = await call.heardFromStart(30_000);
  await record(call, true, measured);
  expect('micOpenedAfterMs' in measured && Math.abs(measured.micOpenedAfterMs!) < 5000).toBe(true);
  await expect(call).toHaveHeardFromStart();
  await expect(call).toAnswer(/two-year/i, { within: 60_000 });
  const report = await call.end();
  expect(report.preConnect?.sentMs).toBeGreaterThan(0);
  expect(call.turns[0]!.timing.preConnectMs).toBeGreaterThan(0);
});

test('without it (preConnectBuffer: false), the question said at the click reaches the service cut', async ({ voiceCall }) => {
  const call = await voiceCall.start({ sayAtStart: QUESTION, preConnectBuffer: false });
  await record(call, false);
  // Not heard from its start: cut, or (on the slowest profiles) not heard at all. The question
  // starts at the click (sayAtStart plays it from its onset). On wifi the media path is up about
  // 0.1 s after the click (well before `connected`, 0.35 s): 30-110 ms missing measured, around
  // the 100 ms tolerance, so recorded (bench/first-words.mjs) but not asserted.
  test.skip(PROFILE === 'none' || PROFILE === 'wifi', `${PROFILE}: the cut is within the measure's 100 ms tolerance`);
  await expect(call).not.toHaveHeardFromStart({ within: 8_000 });
});
