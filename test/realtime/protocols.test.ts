import { describe, expect, it } from 'vitest';
import { turnEvents } from '../../src/schemas/turn-events.js';
import { openaiCodec } from '../../src/client/openai/codec.js';
import type { RealtimeProtocol, ProtocolFactory, TurnTakingSettings } from '../../emulator/src/realtime/realtime-protocol.js';
import { openAIProtocol } from '../../emulator/src/realtime/openai/protocol.js';
import { defaultSessionState } from '../../emulator/src/realtime/openai/session-config.js';
import { TurnController, type TurnInput } from '../../emulator/src/realtime/turn-controller.js';
import { v1Protocol } from '../../emulator/src/realtime/v1-protocol.js';

// Both protocols as plug-ins of the one turn engine: a real TurnController whose turns tell their
// events (kb-voice/schemas turnEvents) to the protocol, which retells them on a recorded channel.
// No WebRTC: the host is the connection's seam.

const BUILD_MS = 1234;

function engine(factory: ProtocolFactory, opts: { interruptions?: 'auto' | 'off' } = {}) {
  const sent: Array<Record<string, unknown>> = [];
  const inputs: TurnInput[] = [];
  const release = new Map<number, () => void>();
  let ended = 0;
  const configured: TurnTakingSettings[] = [];
  /** The VAD's utterance in progress (its speech time), which endUtterance() ends as the hangover would. */
  let utterance: number | undefined;
  let protocol!: RealtimeProtocol;
  const turns = new TurnController({
    firstTurnId: 1,
    ...(opts.interruptions ? { interruptions: opts.interruptions } : {}),
    run: async (input, turn) => {
      inputs.push(input);
      const e = turnEvents(input.turnId);
      const question = input.kind === 'text' ? input.text : (input.scripted ?? 'spoken words');
      protocol.event(e.question(question));
      protocol.event(e.answerStarted());
      protocol.event(e.answerDelta('Two '));
      // The answer plays until the test lets it finish or the turn is cut.
      await new Promise<void>((resolve) => {
        release.set(input.turnId, resolve);
        turn.abort.signal.addEventListener('abort', () => resolve());
      });
      const interrupted = turn.interrupted;
      const answer = 'Two years.';
      protocol.event(e.answerStopped(interrupted ? 'interrupted' : 'completed'));
      protocol.event(e.answer(answer));
      protocol.event(e.completed({
        message_id: `m${input.turnId}`, input: input.kind, question, answer, first_response_ms: 80, agent_build_ms: BUILD_MS,
        input_duration_ms: input.kind === 'voice' ? Math.round(input.speechMs) : 0, output_duration_ms: 400, interrupted,
      }));
    },
    failed: () => undefined,
  });
  protocol = factory({
    sessionId: 'sess-1', robotId: 'robot-1', now: () => 42,
    sendText: (text) => sent.push(JSON.parse(text) as Record<string, unknown>),
    turns,
    end: async () => {
      ended++;
    },
    configure: (settings) => configured.push(settings),
    preConnect: () => undefined,
    endUtterance: () => {
      if (utterance === undefined) return false;
      vadStop(utterance);
      utterance = undefined;
      return true;
    },
  });
  const settle = () => new Promise((r) => setImmediate(r));
  const finish = async (turnId: number) => {
    release.get(turnId)!();
    await settle();
    await settle();
  };
  const types = () => sent.map((m) => m.type);
  const vadStop = (speechMs = 900) => protocol.vad({ type: 'stop', audio: new Int16Array(16), speechMs } as never);
  /** The caller starts an utterance (the VAD's `start`), still open until its hangover or a commit. */
  const utter = (speechMs: number) => {
    protocol.vad({ type: 'start' } as never);
    utterance = speechMs;
  };
  return { protocol, utter, utteranceOpen: () => utterance !== undefined, turns, sent, inputs, finish, settle, types, vadStop, configured, ended: () => ended, rawSent: () => sent.map((m) => JSON.stringify(m)) };
}

describe('kb-voice v1 protocol through the turn controller', () => {
  const v1 = (script: string[] = []) => v1Protocol({ language: 'en', agentReady: () => true, resumed: true, takeScript: () => script.shift() });

  it('says session.ready, answers pings and protocol errors, and tells a typed turn in the service order', async () => {
    const t = engine(v1());
    t.protocol.open();
    expect(t.sent[0]).toEqual({ v: 1, type: 'session.ready', session_id: 'sess-1', language: 'en', agent_ready: true, resumed: true, capabilities: ['pre_connect_audio'] });
    t.protocol.message(JSON.stringify({ v: 1, type: 'ping', t: 7 }));
    expect(t.sent.at(-1)).toEqual({ v: 1, type: 'pong', t: 7, at_ms: 42 }); // at_ms: the connection's clock (host.now), as the speech events'
    t.protocol.message('{ nope');
    expect(t.sent.at(-1)).toMatchObject({ type: 'error', code: 'protocol_error' });
    t.sent.length = 0;
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.text', text: 'How long is the warranty?' }));
    await t.finish(1);
    expect(t.types()).toEqual(['transcript.final', 'output.speech_started', 'transcript.delta', 'output.speech_stopped', 'transcript.final', 'turn.completed']);
    expect(t.sent.at(-1)).toMatchObject({ v: 1, turn_id: 1, input: 'text', question: 'How long is the warranty?', agent_build_ms: BUILD_MS, interrupted: false });
  });

  it('speech over an answer holds it, cuts it once the judge confirms (barge-in) and becomes the next turn, with its scripted words', async () => {
    const t = engine(v1(['Can I descale with vinegar?']));
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.text', text: 'first' }));
    t.protocol.vad({ type: 'start' } as never);
    expect(t.sent.find((m) => m.type === 'input.speech_started')).toEqual({ v: 1, type: 'input.speech_started', turn_id: 2, at_ms: 42 });
    await t.settle();
    // Speech alone does not cut the answer: the barge-in judge does.
    expect(t.sent.find((m) => m.type === 'turn.completed')).toBeUndefined();
    t.protocol.interruption('pause');
    expect(t.sent.at(-1)).toEqual({ v: 1, type: 'output.speech_paused', turn_id: 1 });
    t.protocol.interruption('cut');
    await t.settle();
    expect(t.sent.find((m) => m.type === 'turn.completed')).toMatchObject({ turn_id: 1, interrupted: true });
    expect(t.sent.find((m) => m.type === 'output.speech_stopped')).toMatchObject({ turn_id: 1, reason: 'interrupted' });
    t.vadStop(1500);
    expect(t.sent.find((m) => m.type === 'input.speech_stopped')).toEqual({ v: 1, type: 'input.speech_stopped', turn_id: 2, at_ms: 42, duration_ms: 1500 });
    expect(t.inputs[1]).toMatchObject({ kind: 'voice', turnId: 2, scripted: 'Can I descale with vinegar?', speechMs: 1500 });
    // response.interrupt cuts it too; session.end ends the call.
    t.protocol.message(JSON.stringify({ v: 1, type: 'response.interrupt' }));
    await t.settle();
    expect(t.sent.filter((m) => m.type === 'turn.completed').map((m) => [m.turn_id, m.interrupted])).toEqual([[1, true], [2, true]]);
    t.protocol.message(JSON.stringify({ v: 1, type: 'session.end' }));
    expect(t.ended()).toBe(1);
  });

  it('a false interruption: the held answer resumes, and the speech that held it is no turn', async () => {
    const t = engine(v1());
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.text', text: 'first' }));
    t.protocol.vad({ type: 'start' } as never);
    t.protocol.interruption('pause');
    t.vadStop(300);
    expect(t.sent.find((m) => m.type === 'input.speech_stopped')).toEqual({ v: 1, type: 'input.speech_stopped', turn_id: 2, at_ms: 42, duration_ms: 300, false_interruption: true });
    t.protocol.interruption('resume');
    t.protocol.interruption('false-interruption');
    expect(t.sent.at(-1)).toEqual({ v: 1, type: 'output.speech_resumed', turn_id: 1 });
    expect(t.turns.active).toMatchObject({ id: 1, interrupted: false, paused: false, falseInterruptions: 1 });
    await t.finish(1);
    expect(t.inputs.map((i) => i.turnId)).toEqual([1]);
    expect(t.sent.find((m) => m.type === 'turn.completed')).toMatchObject({ turn_id: 1, interrupted: false });
  });

  it('push-to-talk: input.commit ends the utterance at once and it becomes the turn; a commit with nothing open does nothing', async () => {
    const t = engine(v1(['How long is the warranty?']));
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.commit' }));
    expect(t.sent).toEqual([]);
    t.utter(1200);
    expect(t.types()).toEqual(['input.speech_started']);
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.commit' }));
    expect(t.utteranceOpen()).toBe(false);
    expect(t.sent[1]).toEqual({ v: 1, type: 'input.speech_stopped', turn_id: 1, at_ms: 42, duration_ms: 1200 });
    expect(t.inputs).toEqual([expect.objectContaining({ kind: 'voice', turnId: 1, speechMs: 1200, scripted: 'How long is the warranty?' })]);
    await t.finish(1);
    expect(t.sent.at(-1)).toMatchObject({ type: 'turn.completed', turn_id: 1, input: 'voice', interrupted: false });
    // A second commit, nothing open: no event, no turn.
    const before = t.sent.length;
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.commit' }));
    expect(t.sent.length).toBe(before);
    expect(t.inputs).toHaveLength(1);
  });

  it('with interruptions off, a typed question waits for the answer in progress and keeps its number', async () => {
    const t = engine(v1(), { interruptions: 'off' });
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.text', text: 'first' }));
    t.protocol.message(JSON.stringify({ v: 1, type: 'input.text', text: 'second' }));
    expect(t.inputs.map((i) => i.turnId)).toEqual([1]);
    await t.finish(1);
    expect(t.inputs.map((i) => i.turnId)).toEqual([1, 2]);
    await t.finish(2);
    expect(t.sent.filter((m) => m.type === 'turn.completed').map((m) => [m.turn_id, m.question, m.interrupted])).toEqual([[1, 'first', false], [2, 'second', false]]);
  });
});

describe('OpenAI protocol through the turn controller', () => {
  const oai = (turnDetection = true) => {
    const session = defaultSessionState('sess_1', 'robot-1');
    return openAIProtocol({ session: turnDetection ? session : { ...session, turnDetection: null }, usageOf: () => undefined });
  };

  it('answers a typed question as a response whose metadata carries the build time, and kb-voice\'s codec reports it', async () => {
    const t = engine(oai());
    t.protocol.open();
    t.protocol.message(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] } }));
    t.protocol.message(JSON.stringify({ type: 'response.create' }));
    expect(t.inputs).toEqual([expect.objectContaining({ kind: 'text', turnId: 1, text: 'How long is the warranty?' })]);
    // A second response.create while this one runs is refused, as OpenAI does.
    t.protocol.message(JSON.stringify({ type: 'response.create', event_id: 'ev_2' }));
    expect(t.sent.at(-1)).toMatchObject({ type: 'error', error: { code: 'conversation_already_has_active_response', event_id: 'ev_2' } });
    await t.finish(1);
    const done = t.sent.find((m) => m.type === 'response.done') as { response: { status: string; metadata: Record<string, string> } };
    expect(done.response).toMatchObject({ status: 'completed', metadata: { message_id: 'm1', agent_build_ms: String(BUILD_MS) } });

    // The client side: kb-voice's OpenAI codec turns these events back into a v1 turn.
    const codec = openaiCodec(() => 0);
    const decoded = t.rawSent().flatMap((text) => {
      const out = codec.decode(text);
      return Array.isArray(out) ? out : [];
    });
    expect(decoded.find((e) => e.type === 'turn.completed')).toMatchObject({ turn_id: 1, message_id: 'm1', agent_build_ms: BUILD_MS, interrupted: false });
    // Without the emulator's metadata the build time is unknown: null, never 0.
    const plain = openaiCodec(() => 0);
    const withoutBuild = t.rawSent().map((text) => text.replace(/,"agent_build_ms":"\d+"/, '')).flatMap((text) => {
      const out = plain.decode(text);
      return Array.isArray(out) ? out : [];
    });
    expect(withoutBuild.find((e) => e.type === 'turn.completed')).toMatchObject({ turn_id: 1, agent_build_ms: null });
  });

  it('server VAD: speech over a response cancels it (turn_detected) once the judge confirms, and the utterance gets the next turn once it is over', async () => {
    const t = engine(oai());
    t.protocol.open();
    expect(t.configured.at(-1)).toMatchObject({ interruptions: { mode: 'auto', minSpeechMs: 500, resumeAfterMs: 2000 }, vad: { stopMs: 500, preRollMs: 300 } });
    t.protocol.vad({ type: 'start' } as never);
    t.vadStop(800);
    expect(t.inputs).toEqual([expect.objectContaining({ kind: 'voice', turnId: 1 })]);
    t.protocol.vad({ type: 'start' } as never);
    t.protocol.interruption('pause');
    expect(t.turns.active).toMatchObject({ paused: true });
    t.protocol.interruption('cut');
    await t.settle();
    const cancelled = t.sent.find((m) => m.type === 'response.done') as { response: { status: string; status_details: { reason: string } } };
    expect(cancelled.response).toMatchObject({ status: 'cancelled', status_details: { reason: 'turn_detected' } });
    t.vadStop(600);
    await t.settle();
    await t.settle();
    expect(t.inputs.map((i) => i.turnId)).toEqual([1, 2]);
    await t.finish(2);
    expect(t.sent.filter((m) => m.type === 'response.done').map((m) => (m as { response: { status: string } }).response.status)).toEqual(['cancelled', 'completed']);
    // response.cancel with nothing active is an error; output_audio_buffer.clear then just reports cleared.
    t.protocol.message(JSON.stringify({ type: 'response.cancel', event_id: 'ev_c' }));
    expect(t.sent.at(-1)).toMatchObject({ type: 'error', error: { code: 'response_cancel_not_active' } });
  });

  it('manual turns (turn_detection null): input_audio_buffer.commit ends the utterance still in its hangover, and response.create answers it', async () => {
    const t = engine(oai(false));
    t.protocol.open();
    t.utter(1100);
    // Manual turns tell nothing of the utterance itself.
    expect(t.types()).toEqual(['session.created']);
    // What kb-voice's OpenAI codec sends for input.commit (push-to-talk's release).
    t.protocol.message(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    t.protocol.message(JSON.stringify({ type: 'response.create' }));
    expect(t.sent.find((m) => m.type === 'error')).toBeUndefined();
    expect(t.types().slice(1, 4)).toEqual(['input_audio_buffer.committed', 'conversation.item.added', 'conversation.item.done']);
    expect(t.inputs).toEqual([expect.objectContaining({ kind: 'voice', turnId: 1, speechMs: 1100 })]);
    await t.finish(1);
    expect(t.sent.filter((m) => m.type === 'response.done').map((m) => (m as { response: { status: string } }).response.status)).toEqual(['completed']);
    // Nothing open and nothing heard: the commit is refused, as OpenAI does.
    t.protocol.message(JSON.stringify({ type: 'input_audio_buffer.commit', event_id: 'ev_e' }));
    expect(t.sent.at(-1)).toMatchObject({ type: 'error', error: { code: 'input_audio_buffer_commit_empty', event_id: 'ev_e' } });
  });

  it('server VAD: input_audio_buffer.commit ends the utterance at once and it is committed and answered as at its hangover\'s end', async () => {
    const t = engine(oai());
    t.protocol.open();
    t.utter(900);
    t.protocol.message(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    expect(t.sent.find((m) => m.type === 'error')).toBeUndefined();
    expect(t.types().filter((x) => String(x).startsWith('input_audio_buffer.'))).toEqual(['input_audio_buffer.speech_started', 'input_audio_buffer.speech_stopped', 'input_audio_buffer.committed']);
    expect(t.inputs).toEqual([expect.objectContaining({ kind: 'voice', turnId: 1, speechMs: 900 })]);
    await t.finish(1);
  });

  it('honours turn_detection: session.update reconfigures the VAD and the barge-in; interrupt_response false turns barge-in off', async () => {
    const t = engine(oai());
    t.protocol.open();
    t.protocol.message(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', threshold: 0.9, prefix_padding_ms: 100, silence_duration_ms: 800, interrupt_response: false } } } } }));
    const settings = t.configured.at(-1)!;
    expect(settings).toMatchObject({ interruptions: { mode: 'off' }, vad: { stopMs: 800, preRollMs: 100 } });
    expect(settings.vad!.thresholds!.minPeriodicity).toBeCloseTo(0.82);
    expect(t.sent.at(-1)).toMatchObject({ type: 'session.updated', session: { audio: { input: { turn_detection: { threshold: 0.9, silence_duration_ms: 800, interrupt_response: false } } } } });
    t.protocol.message(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: null } } } }));
    expect(t.configured.at(-1)).toMatchObject({ interruptions: { mode: 'off' } });
  });
});
