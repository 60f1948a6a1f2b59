import { afterEach, describe, expect, it, vi } from 'vitest';
import wrtc from '@roamhq/wrtc';
import { ValidationError } from '../../src/api/index.js';
import { VoiceSession, VoiceSessionError, type AudioLevels, type SessionState, type VoiceSessionOptions } from '../../src/client/index.js';
import { SERVICE_SILENCE_MAX_MS } from '../../src/client/heartbeat.js';
import { FakeServer } from './helpers/fake-server.js';
import { FakeMicrophone } from './helpers/microphone.js';

// The controller against a minimal fake service peer (real WebRTC over loopback via @roamhq/wrtc),
// for what needs a real peer: the offer's candidates, readiness, aborting signaling, the heartbeat
// over the data channel, device switches and recovery. What needs none runs on kb-voice/testing in
// controller.test.ts and lifecycle.test.ts; the full emulator in emulator.test.ts.

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
    // Sent as soon as the offer exists (trickle ICE): its candidates may or may not be in it yet.
    expect(server.offers[0]!.sdp).toContain('m=audio');
    expect(states.map((s) => s.status)).toEqual(['connecting', 'connected']);
    expect(session.remoteStream?.getAudioTracks()).toHaveLength(1);
  });

  it('is not connected before session.ready: without it the attempt fails', async () => {
    const { server, mic, session, states, errors } = setup({ connectTimeoutMs: 1500 });
    server.sendReady = false;
    await expect(session.start()).rejects.toMatchObject({ code: 'connection_failed' });
    expect(states.map((s) => s.status)).toEqual(['connecting', 'failed']);
    expect(errors.map((e) => e.code)).toEqual(['connection_failed']);
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
    expect(states.map((s) => s.status)).toEqual(['connecting', 'ending', 'ended']);
    await expect(session.start()).rejects.toMatchObject({ code: 'session_ended' }); // a new call needs a new session
  });

});

describe('VoiceSession while connected', () => {
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

});

describe('VoiceSession recovery', () => {
  it('detects a silent link by heartbeat, reconnects to the same session, keeps turns', { timeout: 40_000 }, async () => {
    const { server, session, states } = setup({ heartbeatIntervalMs: 150 });
    await session.start();
    server.calls[0]!.turn({
      turnId: 1, message_id: 'm1', input: 'text', question: 'q', answer: 'a',
      first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
    });
    await vi.waitFor(() => expect(session.turns).toHaveLength(1));
    server.respondToPings = false; // the far side goes quiet: ICE still says connected
    const quietFrom = performance.now();
    // Its media stack still sends RTCP, so the path looks alive: a stalled service, given up to
    // SERVICE_SILENCE_MAX_MS of silence before the link counts as dead (heartbeat.ts).
    await waitState(session, 'reconnecting', SERVICE_SILENCE_MAX_MS + 6000);
    expect(performance.now() - quietFrom).toBeGreaterThanOrEqual(SERVICE_SILENCE_MAX_MS - 500);
    server.respondToPings = true;
    await waitState(session, 'connected');
    expect(server.offers).toHaveLength(2);
    expect(server.offers[1]!.session_id).toBe('sess-1');
    expect(states.map((s) => s.status)).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    expect(states[2]).toEqual({ status: 'reconnecting', sessionId: 'sess-1', how: 'new-offer', attempt: 1, cause: 'connection_lost' });
    expect(session.turns).toHaveLength(1);
    expect(server.warmupCalls).toBe(1); // warmup belongs to the call, not to each connection
  });

  it('ends with connection_lost when the call cannot be restored in time, turns kept', async () => {
    const { server, mic, session, errors } = setup({ heartbeatIntervalMs: 150, reconnectTimeoutMs: 1200 });
    await session.start();
    server.calls[0]!.turn({
      turnId: 1, message_id: 'm1', input: 'text', question: 'q', answer: 'a',
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
