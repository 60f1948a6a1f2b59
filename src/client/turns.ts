import type { EventEmitter } from 'eventemitter3';
import type { ServerEvent } from '../schemas/realtime-events.js';
import { VoiceSessionError } from './errors.js';
import type { SessionEvents, Turn } from './events.js';

/**
 * Follows protocol events and turns them into session events: speaking flags, transcripts and
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
export class TurnTracker {
  readonly turns: Turn[] = [];
  userSpeaking = false;
  assistantSpeaking = false;
  private readonly partial = new Map<string, string>();
  /** Turns kept, by message id (or connection number and turn number when the service sent no id). */
  private readonly seen = new Set<string>();
  private connection = 0;
  /** Highest turn number of the service's current numbering, and what it was when the link last dropped. */
  private highestTurnId = 0;
  private numberedBeforeDrop = 0;
  private dropped = false;
  private resetReported = false;

  constructor(private readonly events: EventEmitter<SessionEvents>) {}

  handle(event: ServerEvent): void {
    switch (event.type) {
      case 'input.speech_started':
        return this.setUser(true);
      case 'input.speech_stopped':
        return this.setUser(false);
      case 'output.speech_started':
        return this.setAssistant(true);
      case 'output.speech_stopped':
        return this.setAssistant(false);
      case 'transcript.delta': {
        const key = `${event.turn_id}:${event.role}`;
        const text = (this.partial.get(key) ?? '') + event.delta;
        this.partial.set(key, text);
        this.events.emit('transcript', { turnId: event.turn_id, role: event.role, text, final: false });
        return;
      }
      case 'transcript.final': {
        this.partial.delete(`${event.turn_id}:${event.role}`);
        this.events.emit('transcript', {
          turnId: event.turn_id, role: event.role, text: event.text, final: true,
          ...(event.placeholder ? { placeholder: true } : {}),
        });
        return;
      }
      case 'turn.completed': {
        // A service that recorded nothing (e.g. the session is being deleted) sends no message id.
        const key = event.message_id || `${this.connection}:${event.turn_id}`;
        if (this.seen.has(key)) return;
        if (event.turn_id <= this.numberedBeforeDrop) {
          this.reportReset(`turn ${event.turn_id} arrived again with a new message id after the reconnection`);
        }
        this.highestTurnId = Math.max(this.highestTurnId, event.turn_id);
        this.seen.add(key);
        const turn: Turn = {
          id: event.turn_id,
          input: event.input,
          question: event.question,
          answer: event.answer,
          messageId: event.message_id,
          firstResponseMs: event.first_response_ms,
          agentBuildMs: event.agent_build_ms,
          interrupted: event.interrupted,
          completedAt: new Date().toISOString(),
        };
        this.turns.push(turn);
        this.events.emit('turn', turn);
        return;
      }
      default:
        return;
    }
  }

  /** A connection's `session.ready`: after a drop, `resumed: false` says the service started the session afresh. */
  ready(resumed: boolean | undefined): void {
    if (this.dropped && resumed === false) this.reportReset('the service answered the reconnection with a fresh session (resumed: false)');
  }

  /** The connection dropped: nobody is audibly speaking any more, and half-received transcripts restart. */
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
    this.events.emit('error', new VoiceSessionError(
      'session_reset',
      `The call was restored, but the service no longer had this session's state (${why}): turns so far are kept here, the service's turn numbers start again from 1`,
    ));
  }

  private setUser(value: boolean): void {
    if (this.userSpeaking === value) return;
    this.userSpeaking = value;
    this.events.emit('userSpeaking', value);
  }

  private setAssistant(value: boolean): void {
    if (this.assistantSpeaking === value) return;
    this.assistantSpeaking = value;
    this.events.emit('assistantSpeaking', value);
  }
}
