// Artillery Playwright-engine processor: the same Call as a kb-voice-qa Playwright test.
import { browserCall } from 'kb-voice-qa/artillery';

export const warrantyInBrowser = browserCall(async function warrantyInBrowser(call) {
  await call.say('How long is the warranty?');
  const turn = await call.nextTurn({ timeout: 20_000 });
  if (!/two-year/i.test(turn.answer)) throw new Error(`unexpected answer: ${turn.answer}`);
});
