import { expect, test } from 'kb-voice-qa';

// `coldRobot: true`: the worker's emulator leaves its robot cold, for tests of the build itself
// (warm-robot.spec.ts is the default). Own `voice` option: own worker and emulator.
test.use({ voice: { emulator: { agentBuildMs: 2_000, coldRobot: true }, language: 'en' } });

test('with coldRobot the first turn pays the agent build', async ({ voiceCall }) => {
  const call = await voiceCall.start({ microphone: false });
  await call.type('How long is the warranty?');
  const turn = await call.nextTurn();
  expect(turn.agentBuildMs).toBeGreaterThan(0);
  await call.end();
});
