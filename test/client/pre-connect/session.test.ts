import { describe, expect, it } from 'vitest';
import { VoiceSession, type PcmCapture } from '../../../src/client/index.js';
import { PRE_CONNECT_CAPABILITY } from '../../../src/schemas/realtime-events.js';
import { FakeClock, ScriptedService } from '../../../src/testing/index.js';

// The pre-connect buffer wired into VoiceSession, on kb-voice/testing's scripted service and fake
// time: audio captured while connecting reaches the service once connected, ahead of anything else,
// where session.ready announces the capability; muted audio never; push-to-talk only while held.

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function connecting(options: { turnTaking?: 'push-to-talk'; preConnectBuffer?: false } = {}) {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock, autoReady: false });
  let deliver: ((samples: Int16Array, rate: number) => void) | undefined;
  const capture: PcmCapture = (_track, onPcm) => {
    deliver = onPcm;
    return () => (deliver = undefined);
  };
  const session = new VoiceSession({
    aiId: 'robot-1', ...scripted.sessionOptions, language: 'en',
    preConnectBuffer: options.preConnectBuffer ?? { capture },
    ...(options.turnTaking ? { turnTaking: options.turnTaking } : {}),
  });
  const started = session.start();
  await flush();
  expect(session.state.status).toBe('connecting');
  const say = (ms: number) => deliver?.(new Int16Array(16 * ms).fill(7), 16000);
  const ready = async (capabilities?: string[]) => {
    scripted.send({ type: 'session.ready', session_id: session.sessionId!, language: 'en', agent_ready: true, ...(capabilities ? { capabilities } : {}) });
    await started;
    await clock.advance(5000); // the paced chunks (and a few pings)
  };
  return { session, scripted, say, ready, track: () => scripted.tracks[0]!, sent: () => scripted.sent.map((e) => e.type).filter((type) => type !== 'ping') };
}

describe('VoiceSession with the pre-connect buffer', () => {
  it('holds the live track while connecting, then sends the buffered audio first and opens the track', async () => {
    const t = await connecting();
    expect(t.track().enabled).toBe(false);
    t.say(700);
    await t.ready([PRE_CONNECT_CAPABILITY]);
    expect(t.session.state.status).toBe('connected');
    expect(t.sent()[0]).toBe('input.preconnect');
    expect(t.track().enabled).toBe(true);
    const report = await t.session.report();
    expect(report.preConnect).toEqual({ bufferedMs: 700, sentMs: 700, droppedMs: 0 });
    await t.session.end();
  });

  it('a service without the capability gets nothing; the track opens at connected', async () => {
    const t = await connecting();
    t.say(700);
    await t.ready();
    expect(t.sent()).not.toContain('input.preconnect');
    expect(t.track().enabled).toBe(true);
    await t.session.end();
  });

  it('muted while connecting: nothing is buffered', async () => {
    const t = await connecting();
    t.session.mute();
    t.say(700);
    t.session.unmute();
    t.say(100);
    await t.ready([PRE_CONNECT_CAPABILITY]);
    expect((await t.session.report()).preConnect).toMatchObject({ bufferedMs: 100, sentMs: 100 });
    await t.session.end();
  });

  it('push-to-talk: talk(true) works while connecting, only held audio is buffered, and a release before connected commits it', async () => {
    const t = await connecting({ turnTaking: 'push-to-talk' });
    t.say(300); // not held
    t.session.talk(true);
    t.say(500);
    t.session.talk(false);
    t.say(300); // released
    await t.ready([PRE_CONNECT_CAPABILITY]);
    expect(t.sent().slice(0, 2)).toEqual(['input.preconnect', 'input.commit']);
    expect((await t.session.report()).preConnect).toMatchObject({ bufferedMs: 500, sentMs: 500 });
    await t.session.end();
  });

  it('off: the live track is never held and nothing is sent', async () => {
    const t = await connecting({ preConnectBuffer: false });
    expect(t.track().enabled).toBe(true);
    await t.ready([PRE_CONNECT_CAPABILITY]);
    expect(t.sent()).not.toContain('input.preconnect');
    expect((await t.session.report()).preConnect).toBeNull();
    await t.session.end();
  });

  it('Turn.timing.preConnectMs is what the service says of the turn', async () => {
    const t = await connecting();
    t.say(500);
    await t.ready([PRE_CONNECT_CAPABILITY]);
    const turn = new Promise<import('../../../src/client/index.js').Turn>((resolve) => t.session.once('turn', resolve));
    // The scripted service's turn, its speech_stopped told first with the service's count.
    t.scripted.send({ type: 'input.speech_started', turn_id: 1, at_ms: 0 });
    t.scripted.send({ type: 'input.speech_stopped', turn_id: 1, at_ms: 900, duration_ms: 800, pre_connect_ms: 480 });
    t.scripted.turn('How long is the warranty?', 'Two years.');
    expect((await turn).timing.preConnectMs).toBe(480);
    await t.session.end();
  });
});
