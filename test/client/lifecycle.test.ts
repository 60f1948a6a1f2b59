import { describe, expect, it, vi } from 'vitest';
import { VoiceSession, VoiceSessionError, type SessionSnapshot, type VoiceSessionOptions } from '../../src/client/index.js';
import { ScriptedService, type ScriptedServiceOptions, type SignalingFailure } from '../../src/testing/index.js';

// The controller's lifecycle, snapshots and error codes against kb-voice/testing's scripted
// service: no WebRTC is involved, so these run in milliseconds and need no timers.

function setup(service: ScriptedServiceOptions = {}, overrides: Partial<VoiceSessionOptions> = {}) {
  const scripted = new ScriptedService(service);
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, ...overrides });
  const errors: VoiceSessionError[] = [];
  const states: string[] = [];
  session.on('error', (e) => errors.push(e));
  session.on('state', (s) => states.push(s.status));
  return { scripted, session, errors, states };
}

describe('snapshots', () => {
  it('are frozen, keep their identity until something observable changes, and notify subscribers', async () => {
    const { scripted, session } = setup();
    const first = session.getSnapshot();
    expect(Object.isFrozen(first)).toBe(true);
    expect(session.getSnapshot()).toBe(first);
    expect(first).toMatchObject({ status: 'idle', muted: false, turns: [], live: null, sessionId: undefined, error: undefined });
    const seen: SessionSnapshot[] = [];
    const unsubscribe = session.subscribe(() => seen.push(session.getSnapshot()));
    await session.start();
    const connected = session.getSnapshot();
    expect(connected).toMatchObject({ status: 'connected', sessionId: 'scripted-session-1', warmup: 'ok' });
    expect(seen.at(-1)).toBe(connected);
    expect(session.getSnapshot()).toBe(connected); // nothing changed in between

    scripted.userSays('How long is the warranty?');
    expect(session.getSnapshot().live).toEqual({ turnId: 1, user: 'How long is the warranty?', assistant: '' });
    expect(session.getSnapshot().userSpeaking).toBe(false);
    scripted.reply('Two years.', { question: 'How long is the warranty?' });
    const after = session.getSnapshot();
    expect(after.live).toBeNull();
    expect(after.turns).toHaveLength(1);
    expect(Object.isFrozen(after.turns)).toBe(true);
    expect(Object.isFrozen(after.turns[0])).toBe(true);
    expect(connected.turns).toHaveLength(0); // an older snapshot never changes
    expect(after.turns).not.toBe(session.turns);

    const before = seen.length;
    unsubscribe();
    session.mute();
    expect(seen).toHaveLength(before);
    await session.end();
  });

  it('mute() emits `mute` even before a call (the UI shows the choice at once)', () => {
    const { session } = setup();
    const events: boolean[] = [];
    session.on('mute', (m) => events.push(m));
    session.mute();
    session.unmute();
    expect(events).toEqual([true, false]);
  });

  it('mute() and unmute() emit `mute` and change the snapshot; repeating one changes nothing', async () => {
    const { scripted, session } = setup();
    const events: boolean[] = [];
    session.on('mute', (m) => events.push(m));
    await session.start();
    const before = session.getSnapshot();
    session.mute();
    const muted = session.getSnapshot();
    expect(muted).not.toBe(before);
    expect(muted.muted).toBe(true);
    expect(scripted.tracks[0]!.enabled).toBe(false);
    session.mute();
    expect(session.getSnapshot()).toBe(muted);
    session.unmute();
    expect(events).toEqual([true, false]);
    expect(session.getSnapshot().muted).toBe(false);
    await session.end();
  });

  it('shows the live transcript of both sides while the turn runs', async () => {
    const { scripted, session } = setup();
    await session.start();
    scripted.userSays('Opening hours?');
    scripted.send({ type: 'output.speech_started', turn_id: 1 });
    scripted.send({ type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: 'Nine ' });
    scripted.send({ type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: 'to five.' });
    expect(session.getSnapshot()).toMatchObject({
      assistantSpeaking: true, live: { turnId: 1, user: 'Opening hours?', assistant: 'Nine to five.' },
    });
    await session.end({ mode: 'immediate' });
  });
});

describe('lifecycle', () => {
  it('start() after end() rejects with session_ended and says so with an error event, also after a connected call', async () => {
    const { session, errors } = setup();
    await session.start();
    await session.end();
    const err = await session.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VoiceSessionError);
    expect((err as VoiceSessionError).code).toBe('session_ended');
    expect(errors.map((e) => e.code)).toEqual(['session_ended']);
    expect(session.getSnapshot().error?.code).toBe('session_ended');
  });

  it('start() after an end() that came before start() also rejects (no silent no-op)', async () => {
    const { session, errors, states } = setup();
    await session.end();
    expect(states).toEqual(['ended']);
    await expect(session.start()).rejects.toMatchObject({ code: 'session_ended' });
    expect(errors).toHaveLength(1);
  });

  it('a failure is reported once: state failed, one error event, the promise rejects with the same error', async () => {
    const { scripted, session, errors, states } = setup();
    scripted.failSignaling({ status: 401 });
    const err = await session.start().catch((e: unknown) => e);
    expect(states).toEqual(['connecting', 'failed']);
    expect(errors).toEqual([err]);
    expect(session.getSnapshot().state).toEqual({ status: 'failed', error: err });
  });

  it('start() while connecting or connected returns the same promise', async () => {
    const { session } = setup();
    const a = session.start();
    expect(session.start()).toBe(a);
    await a;
    expect(session.start()).toBe(a);
    await session.end();
  });

  it('report() while connecting waits for the session id instead of refusing', async () => {
    const { scripted, session } = setup();
    const release = scripted.holdSignaling();
    const started = session.start();
    await vi.waitFor(() => expect(scripted.offers).toHaveLength(1));
    const report = session.report();
    release();
    await started;
    await expect(report).resolves.toMatchObject({ sessionId: 'scripted-session-1', turns: [] });
    await session.end();
  });

  it('report() answers precise codes: not_connected before start, no_session when the call never got one', async () => {
    const { scripted, session } = setup();
    await expect(session.report()).rejects.toMatchObject({ code: 'not_connected' });
    scripted.failSignaling({ status: 503 });
    const waiting = session.report().catch((e: unknown) => e); // started below: waits, then no session
    await session.start().catch(() => undefined);
    // report() before start() had already answered; a later one says the call never got a session.
    await expect(waiting).resolves.toMatchObject({ code: 'not_connected' });
    await expect(session.report()).rejects.toMatchObject({ code: 'no_session' });
  });

  it('report() that waits while connecting is told no_session when the attempt fails', async () => {
    const { scripted, session } = setup();
    scripted.failSignaling({ status: 503 });
    const release = scripted.holdSignaling();
    const started = session.start().catch(() => undefined);
    await vi.waitFor(() => expect(scripted.offers).toHaveLength(1));
    const report = session.report().catch((e: unknown) => e);
    release();
    await started;
    expect(await report).toMatchObject({ code: 'no_session' });
  });

  it('end() never rejects, in every state', async () => {
    const idle = setup();
    await expect(idle.session.end()).resolves.toBeUndefined();
    const failed = setup();
    failed.scripted.failSignaling({ network: true });
    await failed.session.start().catch(() => undefined);
    await expect(failed.session.end()).resolves.toBeUndefined();
    expect(failed.session.state.status).toBe('failed');
  });
});

describe('options sent with signaling', () => {
  it("interruptions: 'off' goes with every offer (first and reconnection); absent by default", async () => {
    const off = setup({}, { interruptions: 'off' });
    await off.session.start();
    expect(off.scripted.offers[0]).toMatchObject({ interruptions: 'off' });
    await off.session.end();
    const auto = setup();
    await auto.session.start();
    expect(auto.scripted.offers[0]!.interruptions).toBeUndefined();
    await auto.session.end();
  });

  it('a turn whose answer never played keeps firstResponseMs null', async () => {
    const { scripted, session } = setup();
    await session.start();
    scripted.userSays('q');
    scripted.reply('a', { interrupted: true, firstResponseMs: null });
    expect(session.getSnapshot().turns[0]!.firstResponseMs).toBeNull();
    await session.end();
  });
});

describe('error codes', () => {
  const cases: Array<[string, SignalingFailure, string]> = [
    ['401', { status: 401 }, 'unauthorized'],
    ['403', { status: 403 }, 'unauthorized'],
    ['404 (unknown robot)', { status: 404 }, 'not_found'],
    ['429', { status: 429, retryAfterSeconds: 3 }, 'rate_limited'],
    ['502', { status: 502 }, 'service_unavailable'],
    ['503', { status: 503 }, 'service_unavailable'],
    ['504', { status: 504 }, 'service_unavailable'],
    ['network error', { network: true }, 'service_unavailable'],
    ['400', { status: 400 }, 'signaling_failed'],
  ];
  for (const [name, failure, code] of cases) {
    it(`signaling ${name} → ${code}, cause kept`, async () => {
      const { scripted, session } = setup();
      scripted.failSignaling(failure);
      const err = (await session.start().catch((e: unknown) => e)) as VoiceSessionError;
      expect(err.code).toBe(code);
      expect(err.cause).toMatchObject({ name: 'ApiError' });
      if ('status' in failure) expect(err.status).toBe(failure.status);
      if (code === 'rate_limited') expect(err.retryAfterMs).toBe(3000);
      expect(scripted.tracks[0]!.readyState).toBe('ended'); // the microphone is released
    });
  }

  it('webrtc_unsupported is found before the microphone is opened (default transport, no RTCPeerConnection)', async () => {
    const scripted = new ScriptedService();
    const microphone = vi.fn(scripted.microphone);
    const { transport: _unused, ...options } = scripted.sessionOptions;
    const session = new VoiceSession({ aiId: 'robot-1', ...options, microphone });
    expect(typeof (globalThis as { RTCPeerConnection?: unknown }).RTCPeerConnection).toBe('undefined');
    await expect(session.start()).rejects.toMatchObject({ code: 'webrtc_unsupported' });
    expect(microphone).not.toHaveBeenCalled();
    expect(scripted.offers).toHaveLength(0);
  });

  it('a denied microphone is microphone_denied', async () => {
    const { scripted, session } = setup();
    scripted.failMicrophone('NotAllowedError');
    await expect(session.start()).rejects.toMatchObject({ code: 'microphone_denied' });
  });
});

describe('protocol limits and forward compatibility', () => {
  it('an unknown event type of this protocol version is reported once per type, then ignored', async () => {
    const { scripted, session, errors } = setup();
    await session.start();
    for (let i = 0; i < 50; i++) scripted.sendRaw(JSON.stringify({ v: 1, type: 'response.sparkle', n: i }));
    scripted.sendRaw(JSON.stringify({ v: 1, type: 'response.glitter' }));
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      ['protocol_error', expect.stringContaining('response.sparkle')],
      ['protocol_error', expect.stringContaining('response.glitter')],
    ]);
    expect(session.state.status).toBe('connected');
    await session.end();
  });

  it('malformed messages are reported once per distinct error, 16 at most, then only counted (#46)', async () => {
    const { scripted, session, errors } = setup();
    await session.start();
    for (let i = 0; i < 20_000; i++) scripted.sendRaw(i % 2 ? `garbage ${i}` : JSON.stringify({ v: 1, type: 'transcript.final', turn_id: -i, role: 'user', text: 'x' }));
    for (let i = 0; i < 40; i++) scripted.sendRaw(JSON.stringify({ v: 1, type: 'transcript.delta', [`field${i}`]: 1 }));
    expect(errors.length).toBeLessThanOrEqual(16);
    expect(errors.slice(0, 2).map((e) => e.message)).toEqual([expect.stringContaining('turn_id'), 'Data-channel message is not JSON']);
    expect(errors.every((e) => e.code === 'protocol_error')).toBe(true);
    expect(session.state.status).toBe('connected');
    await session.end();
  });

  it('turn.completed for a turn that never started is a protocol_error, not a turn', async () => {
    const { scripted, session, errors } = setup();
    await session.start();
    scripted.send({
      type: 'turn.completed', turn_id: 7, message_id: 'm7', input: 'text', question: 'q', answer: 'a',
      first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
    });
    expect(session.turns).toHaveLength(0);
    expect(errors.map((e) => e.code)).toEqual(['protocol_error']);
    expect(errors[0]!.message).toContain('never started');
    await session.end();
  });

  it('one turn\'s transcript is capped: truncated, reported once', async () => {
    const { scripted, session, errors } = setup({}, { maxTranscriptChars: 1000 });
    await session.start();
    scripted.userSays('q');
    for (let i = 0; i < 30; i++) scripted.send({ type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: 'x'.repeat(100) });
    expect(session.getSnapshot().live?.assistant).toHaveLength(1000);
    expect(errors.map((e) => e.code)).toEqual(['protocol_error']);
    await session.end({ mode: 'immediate' });
  });
});
