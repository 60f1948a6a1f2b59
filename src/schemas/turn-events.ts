import { PROTOCOL_VERSION, type ServerEvent, type ServerEventOf } from './realtime-events.js';

/**
 * The events of one turn, written once: the emulator sends them, `ScriptedService` (kb-voice/testing)
 * scripts them, and tests' fake services replay them. A turn is, in this order:
 *
 * 1. voice only: `input.speech_started`, `input.speech_stopped`;
 * 2. `transcript.final` (user): the question;
 * 3. when the answer plays: `output.speech_started`, `transcript.delta` (assistant) in step with
 *    the audio (held between `output.speech_paused` and `output.speech_resumed` while the caller
 *    may be interrupting), `output.speech_stopped` (`completed`, `interrupted` or `ended`);
 * 4. `transcript.final` (assistant): the whole answer (also when cut);
 * 5. `turn.completed`.
 *
 * Pure (no Node built-in): it runs in browsers and in the emulator alike.
 */

type Completed = ServerEventOf<'turn.completed'>;
/** The members of `turn.completed` a turn supplies (its id, type and version come from the builder). */
export interface TurnOutcome {
  message_id: string;
  input: Completed['input'];
  question: string;
  answer: string;
  first_response_ms: number | null;
  agent_build_ms: number | null;
  input_duration_ms: number;
  output_duration_ms: number;
  interrupted: boolean;
  /** Sounds that paused the answer without interrupting it; omitted when none. */
  false_interruptions?: number;
}

const v = PROTOCOL_VERSION;

/** Builders of one turn's events, one per step above. */
export function turnEvents(turnId: number) {
  const turn_id = turnId;
  return {
    speechStarted: (atMs: number): ServerEventOf<'input.speech_started'> => ({ v, type: 'input.speech_started', turn_id, at_ms: atMs }),
    speechStopped: (atMs: number, durationMs: number, flags: { falseInterruption?: boolean } = {}): ServerEventOf<'input.speech_stopped'> => ({
      v, type: 'input.speech_stopped', turn_id, at_ms: atMs, duration_ms: Math.round(durationMs),
      ...(flags.falseInterruption ? { false_interruption: true } : {}),
    }),
    question: (text: string, flags: { placeholder?: boolean; scripted?: boolean } = {}): ServerEventOf<'transcript.final'> => ({
      v, type: 'transcript.final', turn_id, role: 'user', text,
      ...(flags.placeholder ? { placeholder: true } : {}), ...(flags.scripted ? { scripted: true } : {}),
    }),
    answerStarted: (): ServerEventOf<'output.speech_started'> => ({ v, type: 'output.speech_started', turn_id }),
    answerDelta: (delta: string): ServerEventOf<'transcript.delta'> => ({ v, type: 'transcript.delta', turn_id, role: 'assistant', delta }),
    answerPaused: (): ServerEventOf<'output.speech_paused'> => ({ v, type: 'output.speech_paused', turn_id }),
    answerResumed: (): ServerEventOf<'output.speech_resumed'> => ({ v, type: 'output.speech_resumed', turn_id }),
    answerStopped: (reason: 'completed' | 'interrupted' | 'ended'): ServerEventOf<'output.speech_stopped'> => ({ v, type: 'output.speech_stopped', turn_id, reason }),
    answer: (text: string): ServerEventOf<'transcript.final'> => ({ v, type: 'transcript.final', turn_id, role: 'assistant', text }),
    completed: (outcome: TurnOutcome): ServerEventOf<'turn.completed'> => ({ v, type: 'turn.completed', turn_id, ...outcome }),
  };
}

/** Splits an answer into the pieces sent as deltas; joined, they give the answer back exactly. */
export function deltaPieces(text: string): string[] {
  return text.match(/[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]|[^\s\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]+\s*|\s+/gu) ?? [];
}

/** A whole turn, for {@link turnSequence}. */
export interface TurnScript extends Omit<TurnOutcome, 'question' | 'answer'> {
  turnId: number;
  question: string;
  answer: string;
  /** Voice turns: where the speech started and stopped (ms); defaults 0 and `input_duration_ms`. */
  speech?: { startedAtMs: number; stoppedAtMs: number };
  /** Whether the answer's audio played (speech events and deltas); default: `first_response_ms !== null`. */
  spoken?: boolean;
  /** Flags of the question's transcript. */
  placeholder?: boolean;
  scripted?: boolean;
}

/** Steps 1–2 of a turn: the question (with the speech events of a voice turn). */
export function questionEvents(t: Pick<TurnScript, 'turnId' | 'input' | 'question' | 'input_duration_ms' | 'speech' | 'placeholder' | 'scripted'>): ServerEvent[] {
  const e = turnEvents(t.turnId);
  const out: ServerEvent[] = [];
  if (t.input === 'voice') {
    const started = t.speech?.startedAtMs ?? 0;
    out.push(e.speechStarted(started), e.speechStopped(t.speech?.stoppedAtMs ?? started + t.input_duration_ms, t.input_duration_ms));
  }
  out.push(e.question(t.question, { ...(t.placeholder ? { placeholder: true } : {}), ...(t.scripted ? { scripted: true } : {}) }));
  return out;
}

/** Steps 3–5 of a turn: the spoken answer (when it played), its final transcript and `turn.completed`. */
export function answerEvents(t: TurnScript): ServerEvent[] {
  const e = turnEvents(t.turnId);
  const { turnId: _id, speech: _speech, spoken, placeholder: _p, scripted: _s, ...outcome } = t;
  const out: ServerEvent[] = [];
  if (spoken ?? t.first_response_ms !== null) {
    out.push(e.answerStarted(), ...deltaPieces(t.answer).map((d) => e.answerDelta(d)), e.answerStopped(t.interrupted ? 'interrupted' : 'completed'));
  }
  out.push(e.answer(t.answer), e.completed(outcome));
  return out;
}

/** Every event of one turn, in order (see the module's comment). */
export function turnSequence(t: TurnScript): ServerEvent[] {
  return [...questionEvents(t), ...answerEvents(t)];
}
