import { readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type SessionState, type TranscriptUpdate, type Turn, type VoiceSessionApi, type VoiceSessionError, type AudioLevels } from '../../src/client/index.js';
import { startEmulator } from 'kb-voice-emulator';
import { createRelay } from '../../src/relay/index.js';
import { sinkLevelMeter } from './helpers/level-meter.js';
import { FakeMicrophone } from './helpers/microphone.js';
import { askAndInterrupt, nextTurn } from './helpers/turns.js';
import { ONE_QUESTION_REALTIME } from '../helpers/emulator.js';

// The real controller against the real emulator over real WebRTC (@roamhq/wrtc on loopback): a
// committed WAV is spoken into it in real time, and the call is checked end to end, down to the
// recorded audio downloaded through its presigned URL.

type Emulator = Awaited<ReturnType<typeof startEmulator>>;

let emu: Emulator;
let emuClosed = false;
let api: VoiceSessionApi;
const cleanups: Array<() => void | Promise<void>> = [];

beforeEach(async () => {
  // Spoken questions must stay one turn on a starved CPU (ONE_QUESTION_REALTIME says why).
  emu = await startEmulator({ port: 0, agentBuildMs: 400, realtime: ONE_QUESTION_REALTIME });
  emuClosed = false;
  api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  if (!emuClosed) await emu.close();
});

function call(options: { reconnectTimeoutMs?: number; wrtc?: typeof wrtc; api?: VoiceSessionApi } = {}) {
  const mic = new FakeMicrophone();
  const session = new VoiceSession({
    aiId: emu.fixtures.robotId, api: options.api ?? api, wrtc: (options.wrtc ?? wrtc) as never, microphone: mic.open, language: 'en',
    userIdentifier: 'client-test', levelMeter: sinkLevelMeter, heartbeatIntervalMs: 250,
    ...(options.reconnectTimeoutMs ? { reconnectTimeoutMs: options.reconnectTimeoutMs } : {}),
  });
  const states: SessionState[] = [];
  const errors: VoiceSessionError[] = [];
  const turns: Turn[] = [];
  session.on('state', (s) => states.push(s));
  session.on('error', (e) => errors.push(e));
  session.on('turn', (t) => turns.push(t));
  cleanups.push(async () => {
    await session.end({ mode: 'immediate' });
    mic.close();
  });
  return { mic, session, states, errors, turns };
}

async function setFaults(faults: Record<string, unknown>) {
  const res = await fetch(`${emu.url}/_emulator/faults`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults),
  });
  expect(res.ok).toBe(true);
}


describe('VoiceSession against the emulator', () => {
  it('speaks a WAV, gets a finished turn, ends, and reports usage, cost and downloadable audio', async () => {
    const { mic, session, states, errors } = call();
    const transcripts: TranscriptUpdate[] = [];
    const levels: AudioLevels[] = [];
    session.on('transcript', (t) => transcripts.push(t));
    session.on('level', (l) => levels.push(l));

    await session.start();
    expect(session.state.status).toBe('connected');
    const sessionId = session.sessionId!;
    await vi.waitFor(() => expect(session.warmup).toBe('ok'), { timeout: 5000 });

    const turnDone = nextTurn(session);
    await mic.playWav(readFileSync(new URL('../fixtures/audio/boil-time.wav', import.meta.url)));
    const turn = await turnDone;
    expect(turn.id).toBe(1);
    expect(turn.input).toBe('voice');
    expect(turn.question.length).toBeGreaterThan(0);
    expect(turn.answer.length).toBeGreaterThan(0);
    expect(turn.firstResponseMs).toBeGreaterThan(0);
    expect(turn.agentBuildMs).toBe(0); // warmed: the answer did not pay the 400 ms build
    expect(transcripts.some((t) => t.role === 'user' && t.final && t.text === turn.question)).toBe(true);
    expect(transcripts.some((t) => t.role === 'assistant' && t.final)).toBe(true);

    await session.end(); // graceful: the answer has finished or is let finish
    expect(session.state).toEqual({ status: 'ended', sessionId, reason: 'local' });
    expect(states.map((s) => s.status)).toEqual(['connecting', 'connected', 'ending', 'ended']);
    expect(errors).toEqual([]);
    expect(mic.streams[0]!.getAudioTracks()[0]!.readyState).toBe('ended');
    expect(levels.some((l) => (l.input ?? 0) > 0.3)).toBe(true); // the spoken question
    expect(levels.some((l) => (l.output ?? 0) > 0.3)).toBe(true); // the spoken answer

    const report = await session.report();
    expect(report.sessionId).toBe(sessionId);
    expect(report.aiId).toBe(emu.fixtures.robotId);
    expect(report.turns).toEqual([turn]);
    expect(report.usage).toMatchObject({ session_id: sessionId, turn_count: 1 });
    expect(report.usage!.total_tokens).toBeGreaterThan(0);
    expect(report.cost).toMatchObject({ session_id: sessionId, turn_count: 1 });
    expect(report.cost!.total_cost).toBeGreaterThan(0);
    expect(report.audio.length).toBeGreaterThan(0);
    for (const segment of report.audio) {
      const res = await fetch(segment.url);
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const ascii = (from: number) => String.fromCharCode(...bytes.subarray(from, from + 4));
      expect(ascii(0)).toBe('RIFF');
      expect(ascii(8)).toBe('WAVE');
      expect(bytes.length).toBeGreaterThan(44);
    }
  });

  it('a hanging warmup does not delay connected, and the cold first answer pays the agent build', async () => {
    await setFaults({ warmup: 'hang' });
    const { session } = call();
    const warmupAtConnected: string[] = [];
    session.on('state', (s) => {
      if (s.status === 'connected') warmupAtConnected.push(session.warmup);
    });
    await session.start();
    expect(warmupAtConnected).toEqual(['pending']); // connected while E1 was still hanging
    const turn = await askAndInterrupt(session, 'How long is the warranty?');
    expect(turn.input).toBe('text');
    expect(turn.interrupted).toBe(true);
    expect(turn.question).toBe('How long is the warranty?');
    expect(turn.agentBuildMs).toBeGreaterThan(0);
    expect(session.warmup).toBe('pending');
  });

  it('restores a dropped connection into the same session and keeps the turns', async () => {
    // Every RTCPeerConnection the controller makes, so the test can kill the first one.
    const created: RTCPeerConnection[] = [];
    const Tracked = class extends (wrtc.RTCPeerConnection as unknown as typeof RTCPeerConnection) {
      constructor(config?: RTCConfiguration) {
        super(config);
        created.push(this);
      }
    };
    const { session, states } = call({ wrtc: { ...wrtc, RTCPeerConnection: Tracked } as never });
    await session.start();
    const sessionId = session.sessionId!;
    await askAndInterrupt(session, 'How do I descale the kettle?');

    created[0]!.close(); // the network path dies under the call
    await vi.waitFor(() => expect(states.some((s) => s.status === 'reconnecting')).toBe(true), { timeout: 5000 });
    await vi.waitFor(() => expect(session.state).toEqual({ status: 'connected', sessionId }), { timeout: 10_000 });

    const turn = await askAndInterrupt(session, 'How long is the warranty?');
    expect(turn.id).toBe(2); // the emulator continued the session's numbering
    expect(session.turns.map((t) => t.id)).toEqual([1, 2]);
    await session.end({ mode: 'immediate' });
    const report = await session.report();
    expect(report.usage).toMatchObject({ session_id: sessionId, turn_count: 2 });
  });

  it('ends with connection_lost when the service is gone for good, turns kept', async () => {
    const { session, errors } = call({ reconnectTimeoutMs: 2000 });
    await session.start();
    await askAndInterrupt(session, 'How do I descale the kettle?');
    emuClosed = true;
    await emu.close(); // the whole service disappears: signaling and media
    await vi.waitFor(() => expect(session.state.status).toBe('ended'), { timeout: 10_000 });
    expect(session.state).toMatchObject({ status: 'ended', reason: 'connection_lost' });
    expect(errors.map((e) => e.code)).toContain('connection_lost');
    expect(session.turns).toHaveLength(1);
  });

  it('works through the relay as a scoped user: the browser holds no key', async () => {
    const relay = createRelay({
      upstream: emu.url, apiKey: emu.apiKey,
      robots: '*', authorize: (req) => (req.headers.get('x-user') ? { userIdentifier: req.headers.get('x-user')!, role: 'user' } : null),
    });
    const browserApi = createApiClient({
      baseUrl: 'http://app.test/api/voice', headers: { 'x-user': 'alice' },
      fetch: (input, init) => relay.fetch(new Request(input, init)),
    });
    const { session, errors } = call({ api: browserApi });
    await session.start();
    await vi.waitFor(() => expect(session.warmup).toBe('ok'), { timeout: 5000 });
    const turn = await askAndInterrupt(session, 'How long is the warranty?');
    expect(turn.agentBuildMs).toBe(0);
    await session.end({ mode: 'immediate' });
    const report = await session.report();
    expect(report.usage).toMatchObject({ session_id: session.sessionId, user_identifier: 'alice', turn_count: 1 });
    expect(report.cost).toMatchObject({ session_id: session.sessionId, turn_count: 1 });
    expect(report.audio.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
