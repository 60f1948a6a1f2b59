import { describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../src/api/index.js';
import { VoiceSession, type AudioLevels, type VoiceSessionError, type VoiceSessionOptions } from '../../src/client/index.js';
import { GOODBYE_CLOSE_MS } from '../../src/client/attempt.js';
import { FakeClock, ScriptedService, type ScriptedServiceOptions } from '../../src/testing/index.js';

// The controller's behaviour that needs no real peer, on kb-voice/testing's scripted service:
// warmup, microphone errors, abort, protocol validation, sending, levels, playback and graceful end.
// Real WebRTC cases are in session.test.ts. Time is a FakeClock: nothing here waits for real time.

function setup(service: ScriptedServiceOptions = {}, overrides: Partial<VoiceSessionOptions> = {}) {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock, ...service });
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, ...overrides });
  const errors: VoiceSessionError[] = [];
  session.on('error', (e) => errors.push(e));
  return { scripted, session, errors, clock };
}

const completed = {
  type: 'turn.completed', turn_id: 1, message_id: 'm1', input: 'text', question: 'q', answer: 'a',
  first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
} as const;

describe('VoiceSession (scripted service)', () => {
  it('reports the warmup result through the warmup event, without holding the call', async () => {
    const { session, clock } = setup({ warmup: 'failed' });
    const seen: string[] = [];
    session.on('warmup', (w) => seen.push(w));
    await session.start();
    await clock.settle();
    expect(seen).toEqual(['pending', 'failed']);
    expect(session.state.status).toBe('connected');
  });

  it('a hanging warmup leaves it pending and the call connected', async () => {
    const { session, scripted } = setup({ warmup: 'hang' });
    await session.start();
    expect(session.warmup).toBe('pending');
    expect(scripted.warmupCalls).toBe(1);
    await session.end();
  });

  it('maps a denied microphone to microphone_denied and never signals', async () => {
    const { scripted, session, errors } = setup();
    scripted.failMicrophone('NotAllowedError');
    await expect(session.start()).rejects.toMatchObject({ code: 'microphone_denied' });
    expect(session.state).toMatchObject({ status: 'failed', error: { code: 'microphone_denied' } });
    expect(errors).toHaveLength(1);
    expect(scripted.offers).toHaveLength(0);
  });

  it('an aborted signal ends the call with reason aborted', async () => {
    const controller = new AbortController();
    const { session, clock } = setup({}, { signal: controller.signal });
    await session.start();
    controller.abort();
    await clock.settle();
    expect(session.state).toEqual({ status: 'ended', sessionId: 'scripted-session-1', reason: 'aborted' });
  });

  it('validates incoming messages: bad ones raise protocol_error without dropping the call', async () => {
    const { scripted, session, errors } = setup();
    await session.start();
    scripted.sendRaw('not json');
    scripted.sendRaw(JSON.stringify({ v: 1, type: 'transcript.final', turn_id: 0, role: 'user', text: 'x' })); // ids start at 1
    scripted.sendRaw(JSON.stringify({ v: 2, type: 'future.event' })); // other versions are ignored
    scripted.error('agent_failed', 'the agent crashed');
    scripted.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    scripted.send(completed);
    expect(errors.map((e) => e.code)).toEqual(['protocol_error', 'protocol_error', 'server_error']);
    expect(errors[1]!.message).toContain('turn_id'); // says which field was wrong
    expect(errors[2]!.serverCode).toBe('agent_failed');
    expect(session.state.status).toBe('connected');
    expect(session.turns[0]).toMatchObject({ id: 1, messageId: 'm1', firstResponseMs: 300 });
    await session.end();
  });

  it('sends validated text and interrupts, and refuses when not connected', async () => {
    const { scripted, session } = setup();
    expect(() => session.sendText('hello')).toThrow(expect.objectContaining({ code: 'not_connected' }));
    await session.start();
    expect(() => session.sendText('')).toThrow(ValidationError);
    expect(() => session.sendText('x'.repeat(4001))).toThrow(ValidationError);
    // #46: only whitespace, control characters, a lone surrogate, a bidi override: refused, nothing sent.
    for (const text of [' \t\n ', 'a\u0000b', 'a\u001bb', 'x\ud800', '\udc00x', 'abc\u202edcba', 'a\u2066b']) {
      expect(() => session.sendText(text), JSON.stringify(text)).toThrow(ValidationError);
    }
    expect(() => session.sendText(' ')).toThrow(/only whitespace/);
    expect(() => session.sendText('a\u202eb')).toThrow(/bidi/);
    session.sendText('How long is the warranty?');
    session.interrupt();
    session.sendText('Line one\nline two\ttab 😀 日本語');
    expect(scripted.sent).toEqual([
      { v: 1, type: 'input.text', text: 'How long is the warranty?' },
      { v: 1, type: 'response.interrupt' },
      { v: 1, type: 'input.text', text: 'Line one\nline two\ttab 😀 日本語' },
    ]);
    await session.end();
  });

  it('emits levels from the level meter for input and output', async () => {
    const meter = vi.fn(() => ({ read: () => 0.5, close: () => undefined }));
    const { session, clock } = setup({}, { levelMeter: meter });
    const levels: AudioLevels[] = [];
    session.on('level', (l) => levels.push(l));
    await session.start();
    await clock.advance(350);
    expect(levels).toHaveLength(3); // every 100 ms
    expect(meter).toHaveBeenCalledTimes(2);
    expect(levels.at(-1)).toEqual({ input: 0.5, output: 0.5 });
    await session.end();
  });

  it('attaches the assistant audio to the element before reporting connected, and releases it', async () => {
    const { scripted, session } = setup();
    let attachedAtConnected: unknown;
    session.on('state', (s) => {
      if (s.status === 'connected') attachedAtConnected = scripted.audio.srcObject;
    });
    await session.start();
    expect(attachedAtConnected).toBe(session.remoteStream);
    expect(scripted.audio.autoplay).toBe(true);
    expect(scripted.audio.plays).toBe(1);
    await session.end();
    expect(scripted.audio.srcObject).toBeNull();
  });

  it('reports blocked autoplay and recovers with one resumePlayback() call', async () => {
    const { scripted, session, errors, clock } = setup();
    scripted.audio.blocked = true;
    const blocked = vi.fn();
    session.on('playbackBlocked', blocked);
    await session.start();
    await clock.settle();
    expect(blocked).toHaveBeenCalledTimes(1);
    expect(errors.map((e) => e.code)).toEqual(['playback_blocked']);
    expect(session.state.status).toBe('connected');
    await expect(session.resumePlayback()).rejects.toMatchObject({ code: 'playback_blocked' });
    scripted.audio.blocked = false; // a user gesture happened
    await expect(session.resumePlayback()).resolves.toBeUndefined();
    expect(scripted.audio.plays).toBe(3);
    await session.end();
  });

  it('graceful end lets the assistant finish its sentence, then tells the service', async () => {
    const { scripted, session, clock } = setup();
    await session.start();
    scripted.send({ type: 'output.speech_started', turn_id: 1 });
    let ended = false;
    const ending = session.end().then(() => (ended = true));
    await clock.advance(9000); // within gracefulEndTimeoutMs (10 s)
    expect(ended).toBe(false);
    expect(session.state).toEqual({ status: 'ending', sessionId: 'scripted-session-1', reason: 'local' });
    expect(session.getSnapshot().status).toBe('ending');
    expect(() => session.sendText('one more?')).toThrow(expect.objectContaining({ code: 'not_connected' }));
    expect(scripted.tracks[0]!.enabled).toBe(false); // no new turn may start meanwhile
    scripted.send({ type: 'output.speech_stopped', turn_id: 1, reason: 'completed' });
    await clock.advance(149); // the jitter buffer's tail
    expect(ended).toBe(false);
    await clock.advance(1);
    await ending;
    expect(session.state).toEqual({ status: 'ended', sessionId: 'scripted-session-1', reason: 'local' });
    expect(scripted.sent).toContainEqual({ v: 1, type: 'session.end' });
  });

  it('graceful end waits a bounded time; immediate cuts at once', async () => {
    const a = setup({}, { gracefulEndTimeoutMs: 200 });
    await a.session.start();
    a.scripted.send({ type: 'output.speech_started', turn_id: 1 });
    const ending = a.session.end(); // no speech_stopped ever comes: bounded by gracefulEndTimeoutMs
    await a.clock.advance(349);
    expect(a.session.state.status).toBe('ending');
    await a.clock.advance(1); // 200 ms + the 150 ms tail
    await ending;
    expect(a.session.state.status).toBe('ended');

    const b = setup();
    await b.session.start();
    b.scripted.send({ type: 'output.speech_started', turn_id: 1 });
    const started = b.clock.now();
    await b.session.end({ mode: 'immediate' });
    expect(b.clock.now()).toBe(started); // no timer was waited for
    expect(b.session.state.status).toBe('ended');
    expect(b.scripted.sent).toContainEqual({ v: 1, type: 'session.end' });
  });

  it('end() lets the service hang up first: session.end, then the client waits for the service to close the link', async () => {
    for (const mode of ['graceful', 'immediate'] as const) {
      // The service hangs up when the test says so (drop()), some time after the goodbye.
      const { scripted, session, clock } = setup({ closesOnEnd: false });
      await session.start();
      let ended = false;
      const ending = session.end({ mode }).then(() => (ended = true));
      await clock.advance(GOODBYE_CLOSE_MS / 2);
      expect(scripted.sent.at(-1)).toEqual({ v: 1, type: 'session.end' });
      expect(ended).toBe(false);
      expect(scripted.calls[0]!.open).toBe(true); // the client has not closed its side
      scripted.drop();
      await ending;
      expect(session.state.status).toBe('ended');
      // The side that closes is the side that stopped sending (see GOODBYE_CLOSE_MS).
      expect(scripted.calls[0]!.closedBy).toBe('service');
    }
    // By default ScriptedService hangs up on session.end, as the kb-voice service does: no wait.
    const { scripted, session, clock } = setup();
    await session.start();
    const started = clock.now();
    await session.end();
    expect(clock.now()).toBe(started);
    expect(scripted.calls[0]!.closedBy).toBe('service');
  });

  it('a service that never hangs up: the client closes after GOODBYE_CLOSE_MS, and sends nothing after session.end', async () => {
    const { scripted, session, clock } = setup({ closesOnEnd: false }, { heartbeatIntervalMs: 250 });
    await session.start();
    await clock.advance(1000); // the heartbeat runs: pings go out while connected
    expect(scripted.received.some((m) => m.includes('"ping"'))).toBe(true);
    let ended = false;
    const ending = session.end({ mode: 'immediate' }).then(() => (ended = true));
    await clock.advance(GOODBYE_CLOSE_MS - 1);
    expect(ended).toBe(false);
    expect(session.state.status).toBe('ending');
    await clock.advance(1);
    await ending;
    expect(session.state.status).toBe('ended');
    expect(scripted.calls[0]!.closedBy).toBe('client');
    // No ping (or anything else) after the goodbye: the link may be closing under it.
    const goodbye = scripted.received.findIndex((m) => m.includes('"session.end"'));
    expect(goodbye).toBeGreaterThan(0);
    expect(scripted.received.slice(goodbye + 1)).toEqual([]);
  });

  it('a dropped link reconnects to the same session and keeps the turns', async () => {
    const { scripted, session, clock } = setup();
    const states: string[] = [];
    session.on('state', (s) => states.push(s.status));
    await session.start();
    scripted.turn('q', 'a');
    scripted.drop();
    expect(session.state.status).toBe('reconnecting');
    await clock.advance(50); // the default policy's first try: within 50 ms
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    expect(scripted.offers.map((o) => o.session_id)).toEqual([undefined, 'scripted-session-1']);
    expect(session.getSnapshot().turns).toHaveLength(1);
    await session.end();
  });
});

describe('report() asks for its own call only', () => {
  it('narrows E12 and E13 to an hour around the call start, on the session clock', async () => {
    const clock = new FakeClock(Date.UTC(2026, 4, 1, 12, 0, 0));
    const scripted = new ScriptedService({ clock });
    const queries: unknown[] = [];
    const { realtime } = scripted.api;
    const api = {
      realtime: {
        ...realtime,
        usage: (aiId: string, query?: object) => (queries.push(['usage', query]), realtime.usage(aiId, query)),
        sessionCosts: (aiId: string, query?: object) => (queries.push(['cost', query]), realtime.sessionCosts(aiId, query)),
      },
    };
    const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, api });
    await session.start();
    await clock.advance(3 * 60 * 60 * 1000); // a three-hour call
    await session.end({ mode: 'immediate' });
    const report = await session.report();
    const window = { start_time: '2026-05-01T11:00:00.000Z', end_time: '2026-05-01T16:00:00.000Z' };
    expect(queries).toEqual([['usage', window], ['cost', window]]);
    expect(report.sessionId).toBe('scripted-session-1');
  });
});
