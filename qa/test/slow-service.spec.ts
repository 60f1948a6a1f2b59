import { expect, test } from 'kb-voice-qa';

// The emulator runs in this worker: holding the worker's event loop is a service that stalls (a GC,
// a loaded host) while its media stack goes on. Its data channel says nothing for that long; the
// path still carries its RTCP. Before, the client took 1.25 s of silence for a dead path and
// reconnected, which cut the answer being prepared: the call never heard it (no finished turn).
test('a service that stalls for 2.5 s while answering keeps the call: no reconnection, the answer is heard', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.say('How long is the warranty?');
  const until = performance.now() + 2500;
  while (performance.now() < until); // the service (this process) stands still
  await expect(call).toAnswer(/two-year/i, { within: 20_000 });
  const report = await call.end();
  expect(report.quality?.reconnects).toBe(0);
  expect(report.turns).toHaveLength(1);
});
