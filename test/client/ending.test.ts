import { describe, expect, it } from 'vitest';
import { VoiceSession } from '../../src/client/index.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// A graceful end lets the assistant finish the sentence it is saying, not the whole answer (issue 40:
// End at 1.6 s of an 8.3 s answer ended the call at 9.2 s). The answer's transcript arrives in step
// with its audio, so the end of a sentence in it is the end of that sentence's sound.

async function speaking() {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock });
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
  await session.start();
  scripted.send({ type: 'output.speech_started', turn_id: 1 });
  let ended = false;
  const say = (delta: string) => scripted.send({ type: 'transcript.delta', turn_id: 1, role: 'assistant', delta });
  return { clock, scripted, session, say, end: () => session.end().then(() => (ended = true)), ended: () => ended };
}

describe('graceful end waits for the current sentence', () => {
  it('ends once the sentence being spoken is over, while the answer goes on', async () => {
    const t = await speaking();
    t.say('The warranty lasts two');
    const ending = t.end();
    await t.clock.advance(1000);
    t.say(' years');
    await t.clock.advance(1000);
    expect(t.ended()).toBe(false);
    expect(t.session.state.status).toBe('ending');
    t.say('. It covers');
    await t.clock.advance(149); // the jitter buffer's tail
    expect(t.ended()).toBe(false);
    await t.clock.advance(1);
    await ending;
    expect(t.session.state.status).toBe('ended');
    expect(t.scripted.sent).toContainEqual({ v: 1, type: 'session.end' });
  });

  it('a sentence that just ended in the transcript counts once the next one starts', async () => {
    const t = await speaking();
    t.say('Yes. 二年間です。');
    const ending = t.end();
    await t.clock.advance(500);
    expect(t.ended()).toBe(false); // "。" may still be playing
    t.say('保証は');
    await t.clock.advance(150);
    await ending;
    expect(t.session.state.status).toBe('ended');
  });

  it('Japanese full stops end a sentence; a decimal point inside a number does not', async () => {
    const t = await speaking();
    t.say('It costs 2');
    const ending = t.end();
    t.say('.5 euros');
    await t.clock.advance(500);
    expect(t.ended()).toBe(false);
    t.say(' a month！');
    await t.clock.advance(150);
    await ending;
    expect(t.ended()).toBe(true);
  });

  it('stays bounded by gracefulEndTimeoutMs when no sentence ends', async () => {
    const t = await speaking();
    t.say('An answer without a full stop');
    const ending = t.end();
    await t.clock.advance(10_000 + 149);
    expect(t.ended()).toBe(false);
    await t.clock.advance(1);
    await ending;
    expect(t.session.state.status).toBe('ended');
  });
});
