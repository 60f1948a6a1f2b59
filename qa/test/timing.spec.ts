import { expect, test } from 'kb-voice-qa';
import { TIMING_PHASES } from 'kb-voice';

// Turn.timing in Chromium (issue 38): a spoken question through the harness page's VoiceSession, its
// Web Audio level meters and the browser's own receiver. Which phases are measured and that they
// add up to the perceived latency hold whatever the machine's load; the figures are the bench's.

test('a spoken question in Chromium: endpointing and service measured, the phases adding up to the perceived latency', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.say('How long is the warranty?');
  await expect(call).toAnswer(/two-year/i, { within: 30_000 });
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
  expect(turn.perceivedLatencyMs).not.toBeNull();
  const sum = TIMING_PHASES.reduce((a, p) => a + (t[`${p}Ms`] ?? 0), 0);
  expect(sum).toBe(turn.perceivedLatencyMs);
  // ...and the phase expectation reads the same timeline.
  await expect(call).toRespondWithin(60_000, { phase: 'endpointing' });
  await call.end();
});
