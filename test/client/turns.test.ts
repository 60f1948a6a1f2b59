import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/client/events.js';
import type { SessionEvents, TranscriptUpdate, Turn, VoiceSessionError } from '../../src/client/index.js';
import { TurnTracker, type TurnEvent } from '../../src/client/turns.js';
import type { ServerEvent } from '../../src/schemas/index.js';

function setup() {
  const events = new EventEmitter<SessionEvents>();
  const log: string[] = [];
  const transcripts: TranscriptUpdate[] = [];
  const turns: Turn[] = [];
  events.on('userSpeaking', (v) => log.push(`user:${v}`));
  events.on('assistantSpeaking', (v) => log.push(`assistant:${v}`));
  events.on('transcript', (t) => transcripts.push(t));
  events.on('turn', (t) => turns.push(t));
  const report = ((event: keyof SessionEvents, ...args: unknown[]) => events.emit(event, ...(args as []))) as Report;
  return { tracker: new TurnTracker(report), log, transcripts, turns, events };
}

const completed = (turn_id: number, extra: Partial<Extract<ServerEvent, { type: 'turn.completed' }>> = {}): TurnEvent => ({
  v: 1, type: 'turn.completed', turn_id, message_id: `m${turn_id}`, input: 'voice', question: 'Q?', answer: 'A.',
  first_response_ms: 420, agent_build_ms: 0, input_duration_ms: 1500, output_duration_ms: 2000, interrupted: false, ...extra,
});

const userSaid = (turn_id: number): TurnEvent => ({ v: 1, type: 'transcript.final', turn_id, role: 'user', text: 'Q?' });

describe('TurnTracker', () => {
  it('turns a voice exchange into speaking flags, transcripts and one turn', () => {
    const { tracker, log, transcripts, turns } = setup();
    const events: TurnEvent[] = [
      { v: 1, type: 'input.speech_started', turn_id: 1, at_ms: 100 },
      { v: 1, type: 'input.speech_stopped', turn_id: 1, at_ms: 1600, duration_ms: 1500 },
      { v: 1, type: 'transcript.final', turn_id: 1, role: 'user', text: 'How long is the warranty?' },
      { v: 1, type: 'output.speech_started', turn_id: 1 },
      { v: 1, type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: 'Two ' },
      { v: 1, type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: 'years.' },
      { v: 1, type: 'transcript.final', turn_id: 1, role: 'assistant', text: 'Two years.' },
      { v: 1, type: 'output.speech_stopped', turn_id: 1, reason: 'completed' },
      completed(1, { question: 'How long is the warranty?', answer: 'Two years.', agent_build_ms: 400 }),
    ];
    for (const e of events) tracker.handle(e);
    expect(log).toEqual(['user:true', 'user:false', 'assistant:true', 'assistant:false']);
    expect(transcripts.map((t) => [t.role, t.text, t.final])).toEqual([
      ['user', 'How long is the warranty?', true],
      ['assistant', 'Two ', false],
      ['assistant', 'Two years.', false],
      ['assistant', 'Two years.', true],
    ]);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({
      id: 1, input: 'voice', question: 'How long is the warranty?', answer: 'Two years.', messageId: 'm1',
      firstResponseMs: 420, agentBuildMs: 400, interrupted: false,
    });
    expect(Number.isNaN(Date.parse(turns[0]!.completedAt))).toBe(false);
    expect(tracker.turns).toEqual(turns);
  });

  it('keeps a turn reported twice once, and keeps turns across a connection loss', () => {
    const { tracker, turns } = setup();
    tracker.handle(userSaid(1));
    tracker.handle(completed(1));
    tracker.connectionLost();
    tracker.handle(completed(1));
    tracker.handle(userSaid(2));
    tracker.handle(completed(2, { input: 'text', interrupted: true }));
    expect(turns.map((t) => t.id)).toEqual([1, 2]);
    expect(tracker.turns.map((t) => [t.id, t.input, t.interrupted])).toEqual([[1, 'voice', false], [2, 'text', true]]);
  });

  it('marks placeholder transcripts and clears speaking flags when the connection drops', () => {
    const { tracker, log, transcripts } = setup();
    tracker.handle({ v: 1, type: 'transcript.final', turn_id: 3, role: 'user', text: '(speech, 1.2 s)', placeholder: true });
    expect(transcripts[0]).toEqual({ turnId: 3, role: 'user', text: '(speech, 1.2 s)', final: true, placeholder: true });
    tracker.handle({ v: 1, type: 'output.speech_started', turn_id: 3 });
    tracker.handle({ v: 1, type: 'output.speech_started', turn_id: 3 });
    tracker.handle({ v: 1, type: 'transcript.delta', turn_id: 3, role: 'assistant', delta: 'Par' });
    tracker.connectionLost();
    tracker.handle({ v: 1, type: 'transcript.delta', turn_id: 3, role: 'assistant', delta: 'tial' });
    expect(log).toEqual(['assistant:true', 'assistant:false']);
    expect(tracker.assistantSpeaking).toBe(false);
    expect(transcripts.at(-1)).toEqual({ turnId: 3, role: 'assistant', text: 'tial', final: false });
  });

  it('marks a scripted question on its transcript and its turn, and only that turn', () => {
    const { tracker, transcripts, turns } = setup();
    tracker.handle({ v: 1, type: 'transcript.final', turn_id: 4, role: 'user', text: 'How long is the warranty?', scripted: true });
    expect(transcripts[0]).toEqual({ turnId: 4, role: 'user', text: 'How long is the warranty?', final: true, scripted: true });
    tracker.handle(completed(4));
    tracker.handle({ v: 1, type: 'transcript.final', turn_id: 5, role: 'user', text: '[speech 1.2 s — no recognizer configured]', placeholder: true });
    tracker.handle(completed(5));
    expect(turns.map((t) => [t.id, t.scripted])).toEqual([[4, true], [5, undefined]]);
    // Scripted turns that never complete are not remembered forever.
    for (let id = 10; id < 510; id++) tracker.handle({ v: 1, type: 'transcript.final', turn_id: id, role: 'user', text: 'q', scripted: true });
    expect((tracker as unknown as { scripted: Set<number> }).scripted.size).toBeLessThanOrEqual(64);
  });

  it('remembers a bounded number of turns in progress', () => {
    const { tracker, transcripts } = setup();
    for (let id = 1; id <= 500; id++) tracker.handle({ v: 1, type: 'transcript.delta', turn_id: id, role: 'assistant', delta: 'x' });
    expect(transcripts).toHaveLength(500);
    const internals = tracker as unknown as { partial: Map<string, string>; open: Set<number> };
    expect(internals.partial.size).toBeLessThanOrEqual(128);
    expect(internals.open.size).toBeLessThanOrEqual(64);
  });
});

/** A whole turn as the service sends it: some event of the turn, then its completion. */
function exchange(tracker: TurnTracker, turnId: number, extra: Partial<Extract<ServerEvent, { type: 'turn.completed' }>> = {}): void {
  tracker.handle({ v: 1, type: 'transcript.final', turn_id: turnId, role: 'user', text: 'Q?' });
  tracker.handle(completed(turnId, extra));
}

describe('TurnTracker across a service that lost the session (issue 10, defect 1)', () => {
  function withErrors() {
    const s = setup();
    const errors: VoiceSessionError[] = [];
    s.events.on('error', (e) => errors.push(e));
    return { ...s, errors };
  }

  it('keeps a turn whose number was seen before when its message id is new, and warns once', () => {
    const { tracker, turns, errors } = withErrors();
    tracker.ready(undefined);
    exchange(tracker, 1, { message_id: 'a1' });
    exchange(tracker, 2, { message_id: 'a2' });
    tracker.connectionLost();
    tracker.ready(undefined); // a service that does not say whether it resumed
    exchange(tracker, 1, { message_id: 'b1', question: 'after restart' });
    exchange(tracker, 2, { message_id: 'b2' });
    tracker.handle(completed(2, { message_id: 'b2' })); // reported twice: kept once
    expect(turns.map((t) => t.messageId)).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(tracker.turns.map((t) => t.id)).toEqual([1, 2, 1, 2]);
    expect(errors.map((e) => e.code)).toEqual(['session_reset']);
    expect(errors[0]!.message).toMatch(/turn 1 arrived again/);
  });

  it('warns on session.ready with resumed: false after a drop, not on a first connection or a resumed one', () => {
    const { tracker, turns, errors } = withErrors();
    tracker.ready(false); // first connection: nothing to lose
    exchange(tracker, 1, { message_id: 'a1' });
    tracker.connectionLost();
    tracker.ready(true);
    exchange(tracker, 2, { message_id: 'a2' });
    expect(errors).toEqual([]);
    tracker.connectionLost();
    tracker.ready(false);
    exchange(tracker, 1, { message_id: 'c1' });
    exchange(tracker, 2, { message_id: 'c2' });
    expect(errors.map((e) => e.code)).toEqual(['session_reset']);
    expect(errors[0]!.message).toMatch(/resumed: false/);
    expect(turns.map((t) => t.messageId)).toEqual(['a1', 'a2', 'c1', 'c2']);
    // A second restart is a second reset, reported again.
    tracker.connectionLost();
    tracker.ready(undefined);
    exchange(tracker, 1, { message_id: 'd1' });
    expect(errors.map((e) => e.code)).toEqual(['session_reset', 'session_reset']);
  });

  it('a continued numbering after a reconnection is not a reset', () => {
    const { tracker, turns, errors } = withErrors();
    exchange(tracker, 1, { message_id: 'a1' });
    tracker.connectionLost();
    tracker.handle(completed(1, { message_id: 'a1' })); // the service re-sends the last turn
    exchange(tracker, 2, { message_id: 'a2' });
    expect(turns.map((t) => t.messageId)).toEqual(['a1', 'a2']);
    expect(errors).toEqual([]);
  });
});

describe('TurnTracker without message ids', () => {
  it('tells turns apart by connection and number when the service sent no message id', () => {
    const { tracker, turns } = setup();
    exchange(tracker, 1, { message_id: '' });
    tracker.handle(completed(1, { message_id: '' })); // the same turn twice on one connection
    exchange(tracker, 2, { message_id: '' });
    tracker.connectionLost();
    exchange(tracker, 3, { message_id: '' });
    expect(turns.map((t) => t.id)).toEqual([1, 2, 3]);
  });
});

describe('TurnTracker: a completion told again after a reconnection (resent)', () => {
  it('finishes the turn left open by the drop as cut by the connection (interruptedBy null), once', () => {
    const { tracker, turns, events } = setup();
    const errors: VoiceSessionError[] = [];
    events.on('error', (e) => errors.push(e));
    tracker.handle(userSaid(1));
    tracker.handle({ v: 1, type: 'output.speech_started', turn_id: 1 });
    tracker.connectionLost();
    tracker.ready(true);
    tracker.handle(completed(1, { interrupted: true, resent: true }));
    tracker.handle(completed(1, { interrupted: true, resent: true })); // told twice: kept once
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ id: 1, interrupted: true, interruptedBy: null });
    expect(tracker.live).toBeNull();
    expect(errors).toEqual([]);
  });

  it('ignores, without an error, one of a turn this client never saw (a reloaded page resuming the session)', () => {
    const { tracker, turns, events } = setup();
    const errors: VoiceSessionError[] = [];
    events.on('error', (e) => errors.push(e));
    tracker.ready(true);
    tracker.handle(completed(4, { interrupted: true, resent: true }));
    expect(turns).toEqual([]);
    expect(errors).toEqual([]);
    // not told again: a completion of a turn never started is still a protocol error
    tracker.handle(completed(5));
    expect(errors.map((e) => e.code)).toEqual(['protocol_error']);
  });
});
