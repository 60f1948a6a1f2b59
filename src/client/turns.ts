import type { SessionEffect } from './effects.js';
import type { ServerEvent, ServerEventOf } from '../schemas/realtime-events.js';
import { systemClock } from '../clock.js';
import { VoiceSessionError } from './errors.js';
import type { LiveTranscript, Report, TranscriptUpdate, Turn } from './events.js';
import type { InterruptedBy } from './interruptions.js';
import { UNMEASURED_TIMING, type TurnTiming } from './timing/phases.js';

/** The server events that make up turns: the session hands these to {@link TurnTracker.handle}. */
export type TurnEvent = Extract<ServerEvent, { type: 'input.speech_started' | 'input.speech_stopped' | 'output.speech_started' | 'output.speech_stopped' | 'output.speech_paused' | 'output.speech_resumed' | 'transcript.delta' | 'transcript.final' | 'turn.completed' }>;

/** Limits of {@link TurnTracker}; see the README's guarantees. */
export interface TurnLimits {
  /** Characters kept of one turn's transcript per role (default 65536); the rest is dropped and reported once. */
  maxTranscriptChars?: number;
  /** `Turn.timing` and `Turn.perceivedLatencyMs` of a turn finishing now (the session's timeline); default: not measured. */
  timing?: (completed: ServerEventOf<'turn.completed'>) => { timing: TurnTiming; perceivedLatencyMs: number | null };
  /** `Turn.interruptedBy` of a completed turn (the session's InterruptionLedger); default `caller` for every cut answer. */
  interruptedBy?: (event: ServerEventOf<'turn.completed'>) => InterruptedBy;
  /** Told of the answer as it is heard (the session's Ending). */
  heard?: AnswerHeard;
}

/** Who follows the answer as it is heard (the graceful end): the tracker tells it directly. */
export interface AnswerHeard {
  /** A transcript changed (either role; the listener picks). */
  transcript(update: TranscriptUpdate): void;
  /** The assistant stopped speaking. */
  speechOver(): void;
}

/** Turns in progress remembered at most (older ones are forgotten: their completion then counts as never started). */
const MAX_OPEN_TURNS = 64;

/**
 * Follows protocol events and reports what they mean as session events (an effect: it never emits): speaking flags, transcripts and
 * finished turns. It lives as long as the session (not the connection), so a reconnection never
 * loses turns already tracked, and a turn the service reports twice is kept once.
 *
 * A turn is identified by the service's `message_id` (or, without one, by connection and turn
 * number), never by its number alone: a service that lost the session's state (it restarted)
 * numbers turns from 1 again, and those turns are new.
 * Such a reset is reported once per connection as a `session_reset` error (a warning: the call
 * goes on), from `session.ready` carrying `resumed: false` or, when the service does not say, from
 * a new turn whose number was already used before the reconnection.
 */
export class TurnTracker implements SessionEffect {
  readonly turns: Turn[] = [];
  userSpeaking = false;
  assistantSpeaking = false;
  /** The current turn's transcript so far; null between turns. A new object on every change. */
  live: LiveTranscript | null = null;
  private readonly partial = new Map<string, string>();
  /** Turns whose question the service marked as scripted (QA), until their `turn.completed`. */
  private readonly scripted = new Set<number>();
  /** Turns that showed any event and have not completed: a completion must name one of them. */
  private readonly open = new Set<number>();
  /** Turns whose transcript hit the cap (reported once each). */
  private readonly truncated = new Set<number>();
  private readonly maxChars: number;
  /** Turns kept, by message id (or connection number and turn number when the service sent no id). */
  private readonly seen = new Set<string>();
  private connection = 0;
  /** Highest turn number of the service's current numbering, and what it was when the link last dropped. */
  private highestTurnId = 0;
  private numberedBeforeDrop = 0;
  private dropped = false;
  private resetReported = false;

  private readonly timing: NonNullable<TurnLimits['timing']>;
  private readonly interruptedBy: (event: ServerEventOf<'turn.completed'>) => InterruptedBy;
  private readonly heard: AnswerHeard | undefined;

  constructor(private readonly report: Report, limits: TurnLimits = {}, private readonly now: () => number = () => systemClock.now()) {
    this.maxChars = limits.maxTranscriptChars ?? 65536;
    this.timing = limits.timing ?? (() => ({ timing: UNMEASURED_TIMING, perceivedLatencyMs: null }));
    this.interruptedBy = limits.interruptedBy ?? ((event) => (event.interrupted ? 'caller' : null));
    this.heard = limits.heard;
  }

  /** One event of a turn (the session routes these here; see {@link TurnEvent}). */
  handle(event: TurnEvent): void {
    if (event.type !== 'turn.completed') this.started(event.turn_id);
    switch (event.type) {
      case 'input.speech_started':
        return this.setUser(true);
      case 'input.speech_stopped':
        return this.setUser(false);
      case 'output.speech_started':
        return this.setAssistant(true);
      case 'output.speech_stopped':
        return this.setAssistant(false);
      // A sound that may be the caller holds the answer (a false interruption resumes it): the
      // assistant is silent meanwhile, so a graceful end or a UI does not wait on it.
      case 'output.speech_paused':
        return this.setAssistant(false);
      case 'output.speech_resumed':
        return this.setAssistant(true);
      case 'transcript.delta': {
        const key = `${event.turn_id}:${event.role}`;
        const text = this.cap(event.turn_id, (this.partial.get(key) ?? '') + event.delta);
        this.partial.set(key, text);
        // A service that never finalizes cannot grow this without bound: forget the oldest.
        if (this.partial.size > 2 * MAX_OPEN_TURNS) this.partial.delete(this.partial.keys().next().value!);
        this.setLive(event.turn_id, event.role, text);
        this.transcribed({ turnId: event.turn_id, role: event.role, text, final: false });
        return;
      }
      case 'transcript.final': {
        this.partial.delete(`${event.turn_id}:${event.role}`);
        const text = this.cap(event.turn_id, event.text);
        this.setLive(event.turn_id, event.role, text);
        this.transcribed({
          turnId: event.turn_id, role: event.role, text, final: true,
          ...(event.placeholder ? { placeholder: true } : {}),
          ...(event.scripted ? { scripted: true } : {}),
        });
        if (event.scripted && event.role === 'user') {
          this.scripted.add(event.turn_id);
          if (this.scripted.size > MAX_OPEN_TURNS) this.scripted.delete(this.scripted.values().next().value!);
        }
        return;
      }
      case 'turn.completed': {
        // A service that recorded nothing (e.g. the session is being deleted) sends no message id.
        const key = event.message_id || `${this.connection}:${event.turn_id}`;
        if (this.seen.has(key)) return;
        if (!this.open.delete(event.turn_id)) {
          // A completion told again after a reconnection, of a turn this client never saw (it was
          // reloaded): not ours to keep.
          if (!event.resent) this.report('error', new VoiceSessionError('protocol_error', `turn.completed for turn ${event.turn_id}, which never started: ignored`));
          return;
        }
        if (event.turn_id <= this.numberedBeforeDrop) {
          this.reportReset(`turn ${event.turn_id} arrived again with a new message id after the reconnection`);
        }
        this.highestTurnId = Math.max(this.highestTurnId, event.turn_id);
        this.seen.add(key);
        const turn: Turn = Object.freeze({
          id: event.turn_id,
          input: event.input,
          question: this.cap(event.turn_id, event.question),
          answer: this.cap(event.turn_id, event.answer),
          messageId: event.message_id,
          firstResponseMs: event.first_response_ms,
          ...this.timing(event),
          agentBuildMs: event.agent_build_ms,
          interrupted: event.interrupted,
          // told again after a reconnection: the connection's end cut it, not the caller nor the app
          interruptedBy: event.resent ? (this.interruptedBy(event), null) : this.interruptedBy(event),
          falseInterruptions: event.false_interruptions ?? 0,
          ...(this.scripted.delete(event.turn_id) ? { scripted: true } : {}),
          completedAt: new Date(this.now()).toISOString(),
        });
        this.truncated.delete(event.turn_id);
        if (this.live?.turnId === event.turn_id) this.live = null;
        this.turns.push(turn);
        this.report('turn', turn);
        return;
      }
      default:
        // A new turn event fails to compile here until it is handled above.
        return event satisfies never;
    }
  }

  /** A connection's `session.ready`: after a drop, `resumed: false` says the service started the session afresh. */
  ready(resumed: boolean | undefined): void {
    if (this.dropped && resumed === false) this.reportReset('the service answered the reconnection with a fresh session (resumed: false)');
  }

  /** The connection dropped: nobody is audibly speaking any more, and half-received transcripts restart. */
  lost(): void {
    this.connectionLost();
  }

  close(): void {
    this.connectionLost();
  }

  connectionLost(): void {
    this.setUser(false);
    this.setAssistant(false);
    this.partial.clear();
    this.dropped = true;
    this.connection++;
    this.numberedBeforeDrop = this.highestTurnId;
    this.resetReported = false;
  }

  /** The service lost the session's state: its numbering starts over, and the caller hears it once. */
  private reportReset(why: string): void {
    this.numberedBeforeDrop = 0;
    this.highestTurnId = 0;
    if (this.resetReported) return;
    this.resetReported = true;
    this.report('error', new VoiceSessionError(
      'session_reset',
      `The call was restored, but the service no longer had this session's state (${why}): turns so far are kept here, the service's turn numbers start again from 1`,
    ));
  }

  private started(turnId: number): void {
    if (this.open.has(turnId)) return;
    this.open.add(turnId);
    if (this.open.size > MAX_OPEN_TURNS) this.open.delete(this.open.values().next().value!);
  }

  /** Keeps a turn's text within the cap; the first cut of a turn is reported as protocol_error. */
  private cap(turnId: number, text: string): string {
    if (text.length <= this.maxChars) return text;
    if (!this.truncated.has(turnId)) {
      this.truncated.add(turnId);
      if (this.truncated.size > MAX_OPEN_TURNS) this.truncated.delete(this.truncated.values().next().value!);
      this.report('error', new VoiceSessionError('protocol_error', `The transcript of turn ${turnId} is longer than ${this.maxChars} characters: truncated`));
    }
    return text.slice(0, this.maxChars);
  }

  private setLive(turnId: number, role: 'user' | 'assistant', text: string): void {
    const base = this.live?.turnId === turnId ? this.live : { turnId, user: '', assistant: '' };
    this.live = Object.freeze({ ...base, [role]: text });
  }

  private transcribed(update: TranscriptUpdate): void {
    this.report('transcript', update);
    this.heard?.transcript(update);
  }

  private setUser(value: boolean): void {
    if (this.userSpeaking === value) return;
    this.userSpeaking = value;
    this.report('userSpeaking', value);
  }

  private setAssistant(value: boolean): void {
    if (this.assistantSpeaking === value) return;
    this.assistantSpeaking = value;
    this.report('assistantSpeaking', value);
    if (!value) this.heard?.speechOver();
  }
}
