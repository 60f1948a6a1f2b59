import { describe, expect, it } from 'vitest';
import { VoiceSession } from '../../src/client/index.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

describe('ScriptedService ordered expectations', () => {
  it('checks offers, warmup and client events in order and runs each step\'s answer', async () => {
    const clock = new FakeClock();
    const scripted = new ScriptedService({ clock })
      .expectOffer({ session_id: undefined, language: 'en' })
      .expectWarmup()
      .expectEvent({ type: 'input.text', text: 'How long is the warranty?' }, (event) => {
        scripted.turn(event.text, 'Two years.');
      })
      .expectEvent({ type: 'session.end' });
    const session = new VoiceSession({ aiId: 'robot-1', language: 'en', ...scripted.sessionOptions });
    await session.start();
    session.sendText('How long is the warranty?');
    expect(session.turns.map((t) => t.answer)).toEqual(['Two years.']);
    await session.end();
    expect(() => scripted.assertComplete()).not.toThrow();
  });

  it('names what happened instead, and what never happened', async () => {
    const scripted = new ScriptedService({ clock: new FakeClock() })
      .expectOffer()
      .expectWarmup()
      .expectEvent({ type: 'response.interrupt' })
      .expectEvent({ type: 'session.end' });
    const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
    await session.start();
    session.sendText('hello');
    expect(() => scripted.assertComplete()).toThrow(/interaction 3: expected event \{"type":"response.interrupt"\}, got event \{"v":1,"type":"input.text","text":"hello"\}/);
    session.interrupt();
    await session.end();
    let message = '';
    try {
      scripted.assertComplete();
    } catch (err) {
      message = (err as Error).message;
    }
    // The mismatch stays reported even though the expectation was met later.
    expect(message).toContain('interaction 3');
    expect(message).not.toContain('never happened');
  });

  it('reports an expectation that never happened', async () => {
    const scripted = new ScriptedService({ clock: new FakeClock() }).expectOffer().expectOffer({ session_id: 'scripted-session-1' });
    const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
    await session.start();
    expect(() => scripted.assertComplete()).toThrow(/never happened: offer \{"session_id":"scripted-session-1"\}/);
    scripted.drop();
    await (scripted.sessionOptions.clock as FakeClock).advance(50);
    expect(session.state.status).toBe('connected');
    expect(() => scripted.assertComplete()).not.toThrow();
    await session.end();
  });
});

describe('FakeClock', () => {
  it('fires due timers in time order, only when advanced, and settles promises between them', async () => {
    const clock = new FakeClock(1000);
    const log: string[] = [];
    clock.setTimeout(() => log.push('b@30'), 30);
    const cancelled = clock.setTimeout(() => log.push('never'), 20);
    clock.setTimeout(() => {
      log.push('a@10');
      void Promise.resolve().then(() => clock.setTimeout(() => log.push('c@15'), 5));
    }, 10);
    clock.clearTimeout(cancelled);
    await clock.advance(29);
    expect(log).toEqual(['a@10', 'c@15']);
    expect(clock.now()).toBe(1029);
    await clock.advance(1);
    expect(log).toEqual(['a@10', 'c@15', 'b@30']);
    expect(clock.pending).toBe(0);
  });
});
