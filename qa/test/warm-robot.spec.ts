import { expect, test } from 'kb-voice-qa';

// The per-worker emulator warms its robot (E1) before the first test, so a first turn never pays
// the agent build (5.7 s by default: qa.md's first example failed toRespondWithin(3000) on a fresh
// worker). This file's own `voice` option gives it its own worker and emulator (cold-robot.spec.ts
// is the other side: `coldRobot: true`).
test.use({ voice: { emulator: { agentBuildMs: 2_000 }, language: 'en' } });

test('a fresh worker’s first turn pays no agent build', async ({ voiceCall }) => {
  const call = await voiceCall.start({ microphone: false });
  await call.type('How long is the warranty?');
  const turn = await call.nextTurn();
  expect(turn.agentBuildMs).toBe(0);
  await call.end();
});
