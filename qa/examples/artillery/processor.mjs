// Artillery processor: each virtual user is one voice call from Node (kb-voice-qa/artillery).
// nodeCall() connects as a distinct user, emits the voice.* metrics and counts failures as
// errors.voice_<code>; the function below is the conversation, with the Call verbs.
import { nodeCall } from 'kb-voice-qa/artillery';

export const warranty = nodeCall(async function warranty(call) {
  await call.say('How long is the warranty?');           // Flite into the fake microphone
  await call.expectAnswer(/two-year/i, { within: 20_000 });
  await call.type('How much do replacement filters cost?');
  await call.expectAnswer('980 yen', { within: 20_000 });
});
