import { expect, test } from 'kb-voice-qa';

// Harness calls on a per-worker emulator: spoken questions (Flite TTS into the page's fake
// microphone, scripted as the emulator's transcript), typed questions, the evidence attached.
// voice: { emulator: { agentBuildMs: 300 }, language: 'en' } for the whole project (playwright.config.ts).

test('a spoken and a typed question are answered, with evidence attached', async ({ voiceCall }, testInfo) => {
  const call = await voiceCall.start();
  expect(call.session.status).toBe('connected');
  await call.say('How long is the warranty?');
  await expect(call).toAnswer(/warrant/i, { within: 20_000 });
  expect(call.lastTurn?.input).toBe('voice');
  expect(call.lastTurn?.scripted).toBe(true);
  expect(call.lastTurn?.question).toBe('How long is the warranty?');
  await expect(call).toRespondWithin(15_000);
  // A spoken question whose answer played in the page: the caller's perceived latency is measured.
  expect(call.lastTurn?.perceivedLatencyMs).toEqual(expect.any(Number));

  await call.type('How much do replacement filters cost?');
  const turn = await call.nextTurn();
  expect(turn).toMatchObject({ input: 'text', question: 'How much do replacement filters cost?' });
  expect(turn.answer).toMatch(/980 yen/);

  const report = await call.end();
  expect(report.turns).toHaveLength(2);
  expect(report.sessionId).toBe(call.session.sessionId);
  const names = testInfo.attachments.map((a) => a.name);
  expect(names).toContain('voice-call.json');
  const evidence = JSON.parse(testInfo.attachments.find((a) => a.name === 'voice-call.json')!.body!.toString());
  expect(evidence.turns).toHaveLength(2);
  expect(evidence.latency.firstResponseMs.length).toBeGreaterThan(0);
  expect(names.some((n) => /^voice-call-1-\d+-(turn-\d+-(question|answer)|segment-\d+)\.wav$/.test(n))).toBe(true);
});
