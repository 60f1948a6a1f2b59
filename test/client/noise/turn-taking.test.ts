import { afterEach, describe, expect, it, vi } from 'vitest';
import { VoiceSession, type Turn, type VoiceSessionError, type VoiceSessionOptions } from '../../../src/client/index.js';
import type { NoiseModule } from '../../../src/client/noise/suppression.js';
import { COMMIT_TAIL_MS, HEARD_WITHIN_MS } from '../../../src/client/push-to-talk.js';
import { openaiCodec } from '../../../src/client/openai/codec.js';
import { openaiProtocol } from '../../../src/client/openai/protocol.js';
import type { TransportProvider } from '../../../src/client/transport.js';
import { FakeClock, ScriptedService, fakeStream, fakeTrack, type FakeTrack } from '../../../src/testing/index.js';

// Issue 35, the client's side of turn-taking and noise, on kb-voice/testing's scripted service and
// fake time: the microphone constraints of each noiseSuppression mode and the fallbacks of rnnoise,
// push-to-talk (what is heard, what is sent, when), who cut which answer and the report's counts.

afterEach(() => {
  vi.unstubAllGlobals();
});

function setup(overrides: Partial<VoiceSessionOptions> = {}) {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock });
  let sent: MediaStream | undefined;
  const transport: TransportProvider = {
    open: (options, events) => {
      sent = options.microphone;
      return scripted.sessionOptions.transport!.open(options, events);
    },
  };
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, transport, ...overrides });
  const errors: VoiceSessionError[] = [];
  const turns: Turn[] = [];
  session.on('error', (e) => errors.push(e));
  session.on('turn', (t) => turns.push(t));
  return { clock, scripted, session, errors, turns, sentStream: () => sent };
}

const answerStarts = (scripted: ScriptedService, turnId: number) => scripted.send({ type: 'output.speech_started', turn_id: turnId });
const completes = (scripted: ScriptedService, turnId: number, fields: { interrupted?: boolean; false_interruptions?: number } = {}) => {
  scripted.send({ type: 'output.speech_stopped', turn_id: turnId, reason: fields.interrupted ? 'interrupted' : 'completed' });
  scripted.send({
    type: 'turn.completed', turn_id: turnId, message_id: `m${turnId}`, input: 'text', question: 'q', answer: 'a',
    first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: fields.interrupted ?? false,
    ...(fields.false_interruptions !== undefined ? { false_interruptions: fields.false_interruptions } : {}),
  });
};

/** A getUserMedia stand-in recording the audio constraints asked for. */
function stubGetUserMedia(track: FakeTrack & { applied?: MediaTrackConstraints[] } = fakeTrack()) {
  const asked: MediaTrackConstraints[] = [];
  const applied: MediaTrackConstraints[] = [];
  Object.assign(track, { applyConstraints: async (c: MediaTrackConstraints) => void applied.push(c) });
  vi.stubGlobal('navigator', {
    mediaDevices: {
      getUserMedia: async (c: { audio: MediaTrackConstraints }) => (asked.push(c.audio), fakeStream([track])),
      enumerateDevices: async () => [], addEventListener() {}, removeEventListener() {},
    },
  });
  return { asked, applied, track };
}

describe('noiseSuppression', () => {
  it.each([
    ['browser', { echoCancellation: true, noiseSuppression: true, autoGainControl: true }],
    ['off', { echoCancellation: false, noiseSuppression: false, autoGainControl: false }],
    [undefined, { echoCancellation: true, noiseSuppression: true, autoGainControl: true }],
  ] as const)('%s: asks getUserMedia for its voice processing', async (mode, constraints) => {
    const mic = stubGetUserMedia();
    const { session } = setup({ microphone: {}, ...(mode ? { noiseSuppression: mode } : {}) });
    await session.start();
    expect(mic.asked).toEqual([constraints]);
    expect(session.getSnapshot().noiseSuppression).toEqual({ requested: mode ?? 'browser', active: mode ?? 'browser', gate: false });
  });

  it("the caller's own constraints still win over the mode's", async () => {
    const mic = stubGetUserMedia();
    const { session } = setup({ microphone: { noiseSuppression: true }, noiseSuppression: 'off' });
    await session.start();
    expect(mic.asked[0]).toMatchObject({ noiseSuppression: true, echoCancellation: false });
  });

  it('rnnoise: the raw microphone (echo cancellation kept, browser noise suppression off) goes through the module, and what it returns is sent', async () => {
    const mic = stubGetUserMedia();
    vi.stubGlobal('AudioWorkletNode', class {});
    const processed = fakeStream();
    const calls: unknown[] = [];
    const module: NoiseModule = { processMicrophone: async (raw, options) => (calls.push({ raw, options }), { stream: processed, close: () => calls.push('closed') }) };
    let loads = 0;
    const { session, sentStream } = setup({ microphone: {}, noiseSuppression: 'rnnoise', noiseModule: async () => (loads++, module), voiceGate: { hangoverMs: 300 } });
    expect(loads).toBe(0); // nothing is loaded before the call starts
    await session.start();
    expect(loads).toBe(1);
    expect(mic.asked).toEqual([{ echoCancellation: true, noiseSuppression: false, autoGainControl: true }]);
    expect(calls[0]).toMatchObject({ options: { gate: { hangoverMs: 300 } } });
    expect((calls[0] as { raw: MediaStream }).raw.getAudioTracks()[0]).toBe(mic.track);
    expect(sentStream()).toBe(processed);
    expect(session.getSnapshot().noiseSuppression).toEqual({ requested: 'rnnoise', active: 'rnnoise', gate: true });
    // Mute closes what is sent and the source; the end releases the processing and the device.
    session.mute();
    expect((processed.getAudioTracks()[0] as unknown as FakeTrack).enabled).toBe(false);
    expect(mic.track.enabled).toBe(false);
    await session.end({ mode: 'immediate' });
    expect(calls).toContain('closed');
    expect(mic.track.readyState).toBe('ended');
  });

  it('rnnoise without noiseModule, or without AudioWorklet: the browser cleans the call and the snapshot says why', async () => {
    stubGetUserMedia();
    const noModule = setup({ microphone: {}, noiseSuppression: 'rnnoise' });
    await noModule.session.start();
    expect(noModule.session.getSnapshot().noiseSuppression).toEqual({ requested: 'rnnoise', active: 'browser', reason: 'no_module', gate: false });

    const mic = stubGetUserMedia();
    vi.stubGlobal('AudioWorkletNode', undefined);
    const load = vi.fn(async (): Promise<NoiseModule> => ({ processMicrophone: async () => ({ stream: fakeStream(), close() {} }) }));
    const noWorklet = setup({ microphone: {}, noiseSuppression: 'rnnoise', noiseModule: load });
    await noWorklet.session.start();
    expect(noWorklet.session.getSnapshot().noiseSuppression).toMatchObject({ active: 'browser', reason: 'no_audio_worklet' });
    expect(mic.asked[0]).toMatchObject({ noiseSuppression: true });
    expect(load).not.toHaveBeenCalled();
  });

  it('rnnoise that fails to load: the open track gets the browser noise suppression back, the raw stream is sent, and the status is reported', async () => {
    const mic = stubGetUserMedia();
    vi.stubGlobal('AudioWorkletNode', class {});
    const { session, sentStream } = setup({ microphone: {}, noiseSuppression: 'rnnoise', noiseModule: async () => Promise.reject(new Error('404')) });
    const statuses: unknown[] = [];
    session.on('noiseSuppression', (s) => statuses.push(s));
    await session.start();
    expect(statuses).toEqual([{ requested: 'rnnoise', active: 'browser', reason: 'load_failed', gate: false }]);
    expect(mic.applied).toEqual([{ echoCancellation: true, noiseSuppression: true, autoGainControl: true }]);
    expect(sentStream()?.getAudioTracks()[0]).toBe(mic.track);
  });

  it('rnnoise reset after a non-finite output (#46): the snapshot counts the resets, reported as a noiseSuppression event', async () => {
    stubGetUserMedia();
    vi.stubGlobal('AudioWorkletNode', class {});
    let onReset: ((added: number) => void) | undefined;
    const module: NoiseModule = { processMicrophone: async (_raw, options) => ((onReset = options.onReset), { stream: fakeStream(), close() {} }) };
    const { session } = setup({ microphone: {}, noiseSuppression: 'rnnoise', noiseModule: async () => module });
    const statuses: unknown[] = [];
    session.on('noiseSuppression', (s) => statuses.push(s));
    await session.start();
    onReset!(1);
    onReset!(2);
    expect(session.getSnapshot().noiseSuppression).toEqual({ requested: 'rnnoise', active: 'rnnoise', gate: true, resets: 3 });
    expect(statuses).toHaveLength(2);
  });

  it('an unknown mode fails at construction', () => {
    expect(() => setup({ noiseSuppression: 'krisp' as never })).toThrow(RangeError);
  });
});

describe('push-to-talk', () => {
  it('each hold has an outcome (#46): heard once the service heard the caller, not heard when no turn started within HEARD_WITHIN_MS of the commit', async () => {
    const { session, scripted, clock } = setup({ turnTaking: 'push-to-talk' });
    const outcomes: unknown[] = [];
    session.on('talk', (o) => outcomes.push(o));
    await session.start();
    // A hold the service did not hear: nothing comes back.
    session.talk(true);
    session.talk(false);
    await clock.advance(COMMIT_TAIL_MS + HEARD_WITHIN_MS - 1);
    expect(outcomes).toEqual([]);
    await clock.advance(1);
    expect(outcomes).toEqual([{ heard: false }]);
    // A hold it heard while held: heard at release.
    session.talk(true);
    scripted.userSays('what time is it');
    session.talk(false);
    expect(outcomes).toEqual([{ heard: false }, { heard: true }]);
    await clock.advance(COMMIT_TAIL_MS + HEARD_WITHIN_MS);
    expect(outcomes).toHaveLength(2);
    // Heard after the commit: heard then, and no later "not heard".
    session.talk(true);
    session.talk(false);
    await clock.advance(COMMIT_TAIL_MS + 500);
    scripted.userSays('and the date');
    await clock.advance(HEARD_WITHIN_MS);
    expect(outcomes).toEqual([{ heard: false }, { heard: true }, { heard: true }]);
    await session.end({ mode: 'immediate' });
  });

  it('the microphone is heard only while talking; release commits once the tail has left', async () => {
    const { session, scripted, clock } = setup({ turnTaking: 'push-to-talk' });
    const talking: boolean[] = [];
    session.on('talking', (t) => talking.push(t));
    await session.start();
    const track = scripted.tracks[0]!;
    expect(track.enabled).toBe(false);
    session.talk(true);
    expect(track.enabled).toBe(true);
    expect(session.getSnapshot().talking).toBe(true);
    session.talk(false);
    expect(track.enabled).toBe(false);
    expect(session.getSnapshot().talking).toBe(false);
    expect(scripted.sent.map((e) => e.type)).toEqual([]);
    await clock.advance(COMMIT_TAIL_MS - 1);
    expect(scripted.sent.map((e) => e.type)).toEqual([]);
    await clock.advance(1);
    expect(scripted.sent.map((e) => e.type)).toEqual(['input.commit']);
    expect(talking).toEqual([true, false]);
    // Pressed again before the commit left: that utterance goes on, nothing is committed yet.
    session.talk(true);
    session.talk(false);
    session.talk(true);
    await clock.advance(1000);
    expect(scripted.sent.map((e) => e.type)).toEqual(['input.commit']);
  });

  it('pressing talk over an answer cuts it: the caller interrupted it', async () => {
    const { session, scripted, turns } = setup({ turnTaking: 'push-to-talk' });
    await session.start();
    scripted.userSays('q');
    answerStarts(scripted, 1);
    session.talk(true);
    expect(scripted.sent.map((e) => e.type)).toEqual(['response.interrupt']);
    completes(scripted, 1, { interrupted: true });
    expect(turns[0]).toMatchObject({ interrupted: true, interruptedBy: 'caller' });
  });

  it('talk(true) needs push-to-talk and a connected call; talk(false) never throws', async () => {
    const auto = setup();
    await auto.session.start();
    expect(() => auto.session.talk(true)).toThrow(expect.objectContaining({ code: 'not_supported' }));
    auto.session.talk(false);
    const ptt = setup({ turnTaking: 'push-to-talk' });
    expect(() => ptt.session.talk(true)).toThrow(expect.objectContaining({ code: 'not_connected' }));
    ptt.session.talk(false);
    await ptt.session.start();
    ptt.session.talk(true);
    await ptt.session.end({ mode: 'immediate' });
    expect(ptt.session.getSnapshot().talking).toBe(false);
    ptt.session.talk(false);
  });

  it('rnnoise: the commit waits for the gate pre-roll too', async () => {
    stubGetUserMedia();
    vi.stubGlobal('AudioWorkletNode', class {});
    const { session, scripted, clock } = setup({
      microphone: {}, turnTaking: 'push-to-talk', noiseSuppression: 'rnnoise', voiceGate: { preRollMs: 250 },
      noiseModule: async () => ({ processMicrophone: async () => ({ stream: fakeStream(), close() {} }) }),
    });
    await session.start();
    session.talk(true);
    session.talk(false);
    await clock.advance(250 + COMMIT_TAIL_MS);
    expect(scripted.sent.map((e) => e.type)).toEqual([]);
    await clock.advance(20);
    expect(scripted.sent.map((e) => e.type)).toEqual(['input.commit']);
  });
});

describe('Turn.interruptedBy and report().interruptions', () => {
  it('the app (interrupt(), a typed question), the caller (speech the service heard) or nobody; false interruptions counted', async () => {
    const { session, scripted, turns } = setup();
    await session.start();
    scripted.userSays('one');
    answerStarts(scripted, 1);
    session.interrupt();
    completes(scripted, 1, { interrupted: true });
    scripted.userSays('two');
    answerStarts(scripted, 2);
    completes(scripted, 2, { interrupted: true }); // the service's barge-in: the caller's speech
    scripted.userSays('three');
    answerStarts(scripted, 3);
    completes(scripted, 3, { false_interruptions: 2 }); // paused twice, resumed, finished
    scripted.userSays('four');
    answerStarts(scripted, 4);
    session.sendText('something else');
    completes(scripted, 4, { interrupted: true });
    expect(turns.map((t) => [t.interruptedBy, t.falseInterruptions])).toEqual([['app', 0], ['caller', 0], [null, 2], ['app', 0]]);
    const report = await session.report();
    expect(report.interruptions).toEqual({ byCaller: 1, byApp: 2, false: 2 });
  });

  it('ending the call during an answer is not an interruption (#46): interruptedBy null, not counted', async () => {
    const { session, scripted, turns } = setup();
    await session.start();
    scripted.userSays('one');
    answerStarts(scripted, 1);
    // The service cuts the answer at session.end and completes its turn before it closes the link.
    scripted.expectEvent({ type: 'session.end' }, () => completes(scripted, 1, { interrupted: true }));
    await session.end({ mode: 'immediate' });
    expect(turns.map((t) => [t.interrupted, t.interruptedBy])).toEqual([[true, null]]);
    expect(session.getSnapshot().turns[0]!.interruptedBy).toBeNull();
  });

  it('an interrupt() with no answer under way marks nothing', async () => {
    const { session, scripted, turns } = setup();
    await session.start();
    session.interrupt();
    scripted.userSays('q');
    answerStarts(scripted, 1);
    completes(scripted, 1, { interrupted: true });
    expect(turns[0]!.interruptedBy).toBe('caller');
  });
});

describe('OpenAI dialect', () => {
  it('input.commit is a commit then a response', () => {
    const codec = openaiCodec();
    expect(codec.encode({ v: 1, type: 'input.commit' })).toEqual([JSON.stringify({ type: 'input_audio_buffer.commit' }), JSON.stringify({ type: 'response.create' })]);
  });

  it('push-to-talk turns the service VAD off (turn_detection null); interruptions off keeps it without barge-in', async () => {
    const sessions: unknown[] = [];
    const fetch = async (_url: unknown, init?: RequestInit) => {
      sessions.push(JSON.parse(String((init!.body as FormData).get('session'))));
      return new Response('v=0', { status: 201, headers: { location: '/v1/realtime/calls/c1' } });
    };
    const protocol = openaiProtocol({ relayUrl: '/api/voice', fetch: fetch as typeof globalThis.fetch });
    const base = { aiId: 'r', api: {} as never, language: 'en', signal: new AbortController().signal };
    await protocol.signal({ sdp: 'o' }, { ...base, turnTaking: 'push-to-talk' });
    await protocol.signal({ sdp: 'o' }, { ...base, interruptions: { mode: 'off', minSpeechMs: 300 } });
    await protocol.signal({ sdp: 'o' }, base);
    const detection = sessions.map((s) => (s as { audio: { input: { turn_detection?: unknown } } }).audio.input.turn_detection);
    expect(detection).toEqual([null, { type: 'server_vad', interrupt_response: false }, undefined]);
  });
});
