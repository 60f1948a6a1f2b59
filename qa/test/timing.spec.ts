import { expect, test } from 'kb-voice-qa';
import { TIMING_PHASES } from 'kb-voice';

// Turn.timing in Chromium (issue 38): a spoken question through the harness page's VoiceSession, its
// Web Audio level meters and the browser's own receiver. Which phases are measured, that none is
// negative, and that the perceived latency agrees with what is known without the client's timeline
// (the emulator's own figures, the test's clock) hold whatever the machine's load; the figures are
// the bench's.

/** How far the page's clock (performance.timeOrigin + now()) may sit from this process's Date.now(). */
const CLOCK_SKEW_MS = 1000;

test('a spoken question in Chromium: endpointing and service measured, the perceived latency consistent with the service and the test clock', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  const asked = Date.now();
  await call.say('How long is the warranty?');
  await expect(call).toAnswer(/two-year/i, { within: 30_000 });
  const answered = Date.now();
  const turn = call.turns.at(-1)!;
  expect(turn.input).toBe('voice');
  const t = turn.timing;
  // The service's first response is its own figure; the client's marks place the rest.
  expect(t.serviceMs).toBe(turn.firstResponseMs);
  for (const phase of ['endpointing', 'service'] as const) expect(t[`${phase}Ms`], phase).not.toBeNull();
  // network and buffering split the time after the service's first audio by the receiver's
  // jitter-buffer delay, which this harness page's getStats() may not have measured by the turn's
  // end: then bufferingMs is null (not a guess) and networkMs holds the whole delivery.
  expect(t.networkMs).not.toBeNull();
  expect(t.speechEndAt).not.toBeNull();
  // The emulator's voice detection waits its 600 ms hangover before it calls the speech over.
  expect(t.endpointingMs!).toBeGreaterThanOrEqual(450);
  for (const phase of TIMING_PHASES) if (t[`${phase}Ms`] !== null) expect(t[`${phase}Ms`]!, phase).toBeGreaterThanOrEqual(0);
  const perceived = turn.perceivedLatencyMs!;
  expect(perceived).not.toBeNull();
  // Independent of the client's marks: the caller cannot hear the answer before the emulator's voice
  // detection waited out its hangover (>= 450 ms, above) and then took its own first_response_ms.
  expect(perceived).toBeGreaterThanOrEqual(turn.firstResponseMs! + 450);
  // On the test's own clock: the question ended after it was asked, and its answer was heard before
  // the test saw the turn answered (orderings, no bound on how long anything took).
  expect(t.speechEndAt!).toBeGreaterThanOrEqual(asked - CLOCK_SKEW_MS);
  expect(t.speechEndAt! + perceived).toBeLessThanOrEqual(answered + CLOCK_SKEW_MS);
  // ...and the phase expectation reads the same timeline.
  await expect(call).toRespondWithin(60_000, { phase: 'endpointing' });
  await call.end();
});
