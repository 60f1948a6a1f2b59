import { afterEach, describe, expect, it, vi } from 'vitest';
import wrtc from '@roamhq/wrtc';
import { ValidationError } from '../../src/api/index.js';
import { VoiceSession, VoiceSessionError, type SessionState, type VoiceSessionOptions } from '../../src/client/index.js';
import { FakeServer } from './helpers/fake-server.js';
import { FakeMicrophone } from './helpers/microphone.js';

// The controller against a minimal fake service peer (real WebRTC over loopback via @roamhq/wrtc):
// start/end semantics, readiness, protocol validation, heartbeat and recovery. The full emulator
// runs in integration.test.ts.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(overrides: Partial<VoiceSessionOptions> = {}) {
  const server = new FakeServer();
  const mic = new FakeMicrophone();
  const session = new VoiceSession({
    aiId: 'robot-1', api: server.api, wrtc: wrtc as never, microphone: mic.open, userIdentifier: 'u-1',
    heartbeatIntervalMs: 200, ...overrides,
  });
  const states: SessionState[] = [];
  const errors: VoiceSessionError[] = [];
  session.on('state', (s) => states.push(s));
  session.on('error', (e) => errors.push(e));
  cleanups.push(async () => {
    await session.end({ mode: 'immediate' });
    server.close();
    mic.close();
  });
  return { server, mic, session, states, errors };
}

const waitState = (session: VoiceSession, status: SessionState['status'], timeout = 8000) =>
  vi.waitFor(() => expect(session.state.status).toBe(status), { timeout, interval: 20 });

describe('VoiceSession start()', () => {
  it('connects, fires the warmup without awaiting it, and a second start() is the same attempt', async () => {
    const { server, mic, session, states } = setup();
    server.warmup = () => new Promise(() => undefined); // hangs forever
    const first = session.start();
    const second = session.start();
    expect(second).toBe(first);
    await first;
    expect(session.state).toEqual({ status: 'connected', sessionId: 'sess-1' });
    expect(session.sessionId).toBe('sess-1');
    expect(session.warmup).toBe('pending');
    expect(server.warmupCalls).toBe(1);
    expect(mic.opened).toEqual([undefined]);
    expect(server.offers).toHaveLength(1);
    expect(server.offers[0]).toMatchObject({ type: 'offer', language: 'ja', user_identifier: 'u-1' });
    expect(server.offers[0]!.session_id).toBeUndefined();
    expect(server.offers[0]!.sdp).toContain('a=candidate');
    expect(states.map((s) => s.status)).toEqual(['connecting', 'connected']);
    expect(session.remoteStream?.getAudioTracks()).toHaveLength(1);
  });

  it('reports the warmup result through the warmup event', async () => {
    const { server, session } = setup();
    server.warmup = async () => ({ success: false });
    const seen: string[] = [];
    session.on('warmup', (w) => seen.push(w));
    await session.start();
    await vi.waitFor(() => expect(seen).toEqual(['pending', 'failed']));
    expect(session.state.status).toBe('connected');
  });

  it('is not connected before session.ready: without it the attempt fails', async () => {
    const { server, mic, session, states, errors } = setup({ connectTimeoutMs: 1500 });
    server.sendReady = false;
    await expect(session.start()).rejects.toMatchObject({ code: 'connection_failed' });
    expect(states.map((s) => s.status)).toEqual(['connecting', 'failed']);
    expect(errors.map((e) => e.code)).toEqual(['connection_failed']);
    expect(mic.streams[0]!.getAudioTracks()[0]!.readyState).toBe('ended');
  });

  it('maps a denied microphone to microphone_denied and never signals', async () => {
    const { server, session, errors } = setup({
      microphone: async () => {
        throw Object.assign(new Error('Permission denied'), { name: 'NotAllowedError' });
      },
    });
    const err = await session.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VoiceSessionError);
    expect((err as VoiceSessionError).code).toBe('microphone_denied');
    expect(session.state).toMatchObject({ status: 'failed', error: { code: 'microphone_denied' } });
    expect(errors).toHaveLength(1);
    expect(server.offers).toHaveLength(0);
    // The call is over: start() again says so (promise and error event) instead of retrying.
    await expect(session.start()).rejects.toMatchObject({ code: 'session_ended' });
    expect(errors.map((e) => e.code)).toEqual(['microphone_denied', 'session_ended']);
  });

  it('maps a failed signaling call to signaling_failed with the cause and releases the microphone', async () => {
    const { server, mic, session } = setup();
    const cause = new Error('relay said 502');
    server.signalingError = cause;
    const err = (await session.start().catch((e: unknown) => e)) as VoiceSessionError;
    expect(err.code).toBe('signaling_failed');
    expect(err.cause).toBe(cause);
    expect(mic.streams[0]!.getAudioTracks()[0]!.readyState).toBe('ended');
  });

  it('end() during connecting stops the attempt, aborts signaling and ends the session', async () => {
    const { server, mic, session, states } = setup();
    let open!: () => void;
    server.gate = new Promise((resolve) => (open = resolve));
    const started = session.start();
    await vi.waitFor(() => expect(server.offers).toHaveLength(1));
    await session.end();
    await expect(started).resolves.toBeUndefined();
    expect(session.state).toEqual({ status: 'ended', reason: 'local' });
    expect(server.lastSignal?.aborted).toBe(true);
    expect(mic.streams[0]!.getAudioTracks()[0]!.readyState).toBe('ended');
    open();
    expect(states.map((s) => s.status)).toEqual(['connecting', 'ended']);
    await expect(session.start()).rejects.toMatchObject({ code: 'session_ended' }); // a new call needs a new session
  });

  it('an aborted signal ends the call with reason aborted', async () => {
    const controller = new AbortController();
    const { session } = setup({ signal: controller.signal });
    await session.start();
    controller.abort();
    await waitState(session, 'ended');
    expect(session.state).toEqual({ status: 'ended', sessionId: 'sess-1', reason: 'aborted' });
  });
});

describe('VoiceSession while connected', () => {
  it('validates incoming messages: bad ones raise protocol_error without dropping the call', async () => {
    const { server, session, errors } = setup();
    const turns: unknown[] = [];
    session.on('turn', (t) => turns.push(t));
    await session.start();
    const call = server.calls[0]!;
    call.sendRaw('not json');
    call.send({ type: 'transcript.final', turn_id: 0, role: 'user', text: 'x' }); // turn ids start at 1
    call.sendRaw(JSON.stringify({ v: 2, type: 'future.event' })); // other versions are ignored
    call.send({ type: 'error', code: 'agent_failed', message: 'the agent crashed' });
    call.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    call.send({
      type: 'turn.completed', turn_id: 1, message_id: 'm1', input: 'text', question: 'q', answer: 'a',
      first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
    });
    await vi.waitFor(() => expect(turns).toHaveLength(1));
    expect(errors.map((e) => e.code)).toEqual(['protocol_error', 'protocol_error', 'server_error']);
    expect(errors[2]!.serverCode).toBe('agent_failed');
    expect(session.state.status).toBe('connected');
    expect(session.turns[0]).toMatchObject({ id: 1, messageId: 'm1', firstResponseMs: 300 });
  });

  it('sends validated text and interrupts, and refuses when not connected', async () => {
    const { server, session } = setup();
    expect(() => session.sendText('hello')).toThrow(expect.objectContaining({ code: 'not_connected' }));
    await session.start();
    expect(() => session.sendText('')).toThrow(ValidationError);
    expect(() => session.sendText('x'.repeat(4001))).toThrow(ValidationError);
    session.sendText('How long is the warranty?');
    session.interrupt();
    const received = server.calls[0]!.received;
    await vi.waitFor(() => expect(received.filter((m) => m.type !== 'ping')).toEqual([
      { v: 1, type: 'input.text', text: 'How long is the warranty?' },
      { v: 1, type: 'response.interrupt' },
    ]));
  });

  it('pings on the heartbeat and the service sees pongs answered', async () => {
    const { server, session } = setup({ heartbeatIntervalMs: 100 });
    await session.start();
    await vi.waitFor(() => expect(server.calls[0]!.received.filter((m) => m.type === 'ping').length).toBeGreaterThanOrEqual(5));
    expect(session.state.status).toBe('connected');
  });

  it('mutes and unmutes the microphone track, and switches devices without reconnecting', async () => {
    const { server, mic, session } = setup();
    await session.start();
    const first = mic.streams[0]!.getAudioTracks()[0]!;
    session.mute();
    expect(session.muted).toBe(true);
    expect(first.enabled).toBe(false);
    session.unmute();
    expect(first.enabled).toBe(true);
    session.mute();
    await session.setInputDevice('usb-mic');
    expect(mic.opened).toEqual([undefined, 'usb-mic']);
    const second = mic.streams[1]!.getAudioTracks()[0]!;
    expect(first.readyState).toBe('ended');
    expect(second.enabled).toBe(false); // mute survives the switch
    expect(server.offers).toHaveLength(1);
    expect(session.state.status).toBe('connected');
  });

  it('emits levels from the level meter for input and output', async () => {
    const meter = vi.fn((stream: MediaStream) => ({ read: () => (stream.getAudioTracks().length ? 0.5 : 0), close: () => undefined }));
    const { session } = setup({ levelMeter: meter });
    const levels: Array<{ input: number; output: number }> = [];
    session.on('level', (l) => levels.push(l));
    await session.start();
    await vi.waitFor(() => expect(levels.length).toBeGreaterThan(2));
    expect(meter).toHaveBeenCalledTimes(2);
    expect(levels.at(-1)).toEqual({ input: 0.5, output: 0.5 });
  });
});

/** Stands in for an HTMLAudioElement; `blocked` makes play() fail like an autoplay policy does. */
function fakeAudioElement(blocked: boolean) {
  const el = {
    autoplay: false,
    srcObject: null as MediaStream | null,
    blocked,
    plays: 0,
    play() {
      el.plays++;
      return el.blocked
        ? Promise.reject(Object.assign(new Error('play() can only be initiated by a user gesture'), { name: 'NotAllowedError' }))
        : Promise.resolve();
    },
    pause() {},
  };
  return el;
}

describe('VoiceSession playback', () => {
  it('attaches the assistant audio to the element before reporting connected', async () => {
    const el = fakeAudioElement(false);
    const { session } = setup({ audioElement: el as unknown as HTMLAudioElement });
    let attachedAtConnected: unknown;
    session.on('state', (s) => {
      if (s.status === 'connected') attachedAtConnected = el.srcObject;
    });
    await session.start();
    expect(attachedAtConnected).toBe(session.remoteStream);
    expect(el.autoplay).toBe(true);
    expect(el.plays).toBe(1);
    await session.end();
    expect(el.srcObject).toBeNull(); // released with the call
  });

  it('reports blocked autoplay and recovers with one resumePlayback() call', async () => {
    const el = fakeAudioElement(true);
    const { session, errors } = setup({ audioElement: el as unknown as HTMLAudioElement });
    const blocked = vi.fn();
    session.on('playbackBlocked', blocked);
    await session.start();
    await vi.waitFor(() => expect(blocked).toHaveBeenCalledTimes(1));
    expect(errors.map((e) => e.code)).toEqual(['playback_blocked']);
    expect(session.state.status).toBe('connected'); // the call itself is fine
    await expect(session.resumePlayback()).rejects.toMatchObject({ code: 'playback_blocked' });
    el.blocked = false; // a user gesture happened
    await expect(session.resumePlayback()).resolves.toBeUndefined();
    expect(el.plays).toBe(3);
  });
});

describe('VoiceSession end()', () => {
  it('graceful: lets the assistant finish its sentence before ending', async () => {
    const { server, session } = setup();
    await session.start();
    const call = server.calls[0]!;
    call.send({ type: 'output.speech_started', turn_id: 1 });
    await new Promise((r) => session.once('assistantSpeaking', r));
    let ended = false;
    const ending = session.end().then(() => (ended = true));
    await new Promise((r) => setTimeout(r, 400));
    expect(ended).toBe(false);
    expect(session.state.status).toBe('connected');
    call.send({ type: 'output.speech_stopped', turn_id: 1, reason: 'completed' });
    await ending;
    expect(session.state).toEqual({ status: 'ended', sessionId: 'sess-1', reason: 'local' });
    await vi.waitFor(() => expect(call.received.some((m) => m.type === 'session.end')).toBe(true));
  });

  it('graceful waits a bounded time; immediate cuts at once', async () => {
    const a = setup({ gracefulEndTimeoutMs: 300 });
    await a.session.start();
    a.server.calls[0]!.send({ type: 'output.speech_started', turn_id: 1 });
    await new Promise((r) => a.session.once('assistantSpeaking', r));
    await a.session.end(); // no speech_stopped ever comes: bounded by gracefulEndTimeoutMs
    expect(a.session.state.status).toBe('ended');

    const b = setup();
    await b.session.start();
    b.server.calls[0]!.send({ type: 'output.speech_started', turn_id: 1 });
    await new Promise((r) => b.session.once('assistantSpeaking', r));
    await b.session.end({ mode: 'immediate' });
    expect(b.session.state.status).toBe('ended');
    await vi.waitFor(() => expect(b.server.calls[0]!.received.some((m) => m.type === 'session.end')).toBe(true));
  });
});

describe('VoiceSession recovery', () => {
  it('detects a silent link by heartbeat, reconnects to the same session, keeps turns', async () => {
    const { server, session, states } = setup({ heartbeatIntervalMs: 150 });
    await session.start();
    server.calls[0]!.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    server.calls[0]!.send({
      type: 'turn.completed', turn_id: 1, message_id: 'm1', input: 'text', question: 'q', answer: 'a',
      first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
    });
    await vi.waitFor(() => expect(session.turns).toHaveLength(1));
    server.respondToPings = false; // the far side goes quiet: ICE still says connected
    await waitState(session, 'reconnecting', 3000);
    server.respondToPings = true;
    await waitState(session, 'connected');
    expect(server.offers).toHaveLength(2);
    expect(server.offers[1]!.session_id).toBe('sess-1');
    expect(states.map((s) => s.status)).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    expect(states[2]).toEqual({ status: 'reconnecting', sessionId: 'sess-1', attempt: 1 });
    expect(session.turns).toHaveLength(1);
    expect(server.warmupCalls).toBe(1); // warmup belongs to the call, not to each connection
  });

  it('ends with connection_lost when the call cannot be restored in time, turns kept', async () => {
    const { server, mic, session, errors } = setup({ heartbeatIntervalMs: 150, reconnectTimeoutMs: 1200 });
    await session.start();
    server.calls[0]!.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    server.calls[0]!.send({
      type: 'turn.completed', turn_id: 1, message_id: 'm1', input: 'text', question: 'q', answer: 'a',
      first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
    });
    await vi.waitFor(() => expect(session.turns).toHaveLength(1));
    server.signalingError = new Error('service unreachable');
    server.calls[0]!.peer.destroy(); // the far side disappears
    await waitState(session, 'ended', 6000);
    expect(session.state).toEqual({ status: 'ended', sessionId: 'sess-1', reason: 'connection_lost' });
    expect(errors.map((e) => e.code)).toContain('connection_lost');
    expect(session.turns).toHaveLength(1);
    expect(server.offers.length).toBeGreaterThanOrEqual(2);
    expect(server.offers.slice(1).every((o) => o.session_id === 'sess-1')).toBe(true);
    expect(mic.streams[0]!.getAudioTracks()[0]!.readyState).toBe('ended');
  });
});
