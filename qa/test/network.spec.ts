import { expect, test } from 'kb-voice-qa';

// network: '4g' puts every call of this worker's emulator behind kb-voice-emulator's network lab
// (170 ms RTT, jitter, 1 % loss): the call still answers, and its quality report measured the delay.
test.use({ network: '4g' });

test('a call on the 4g profile answers, and its quality report shows the 4g round trip', async ({ voiceCall }) => {
  const call = await voiceCall.start();
  await call.type('How long is the warranty?');
  await expect(call).toAnswer(/two-year/i, { within: 30_000 });
  await expect(call).toHaveQuality('poor'); // measured at all (any level but unknown)
  const report = await call.end();
  expect(report.quality?.samples).toBeGreaterThan(0);
  // Loopback alone is ~1 ms; the profile adds 85 ms each way.
  expect(report.quality?.rttMs.p50).toBeGreaterThanOrEqual(120);
});
