import type { EventEmitter } from 'eventemitter3';
import type { ServerEvent } from '../schemas/realtime-events.js';
import type { SessionEvents, Turn } from './events.js';

/**
 * Follows protocol events and turns them into session events: speaking flags, transcripts and
 * finished turns. It lives as long as the session (not the connection), so a reconnection never
 * loses turns already tracked, and a turn the service reports twice is kept once.
 */
export class TurnTracker {
  readonly turns: Turn[] = [];
  userSpeaking = false;
  assistantSpeaking = false;
  private readonly partial = new Map<string, string>();
  /** Turns whose question the service marked as scripted (QA), until their `turn.completed`. */
  private readonly scripted = new Set<number>();

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
          ...(event.scripted ? { scripted: true } : {}),
        });
        if (event.scripted && event.role === 'user') this.scripted.add(event.turn_id);
        return;
      }
      case 'turn.completed': {
        if (this.turns.some((t) => t.id === event.turn_id)) return;
        const turn: Turn = {
          id: event.turn_id,
          input: event.input,
          question: event.question,
          answer: event.answer,
          messageId: event.message_id,
          firstResponseMs: event.first_response_ms,
          agentBuildMs: event.agent_build_ms,
          interrupted: event.interrupted,
          ...(this.scripted.delete(event.turn_id) ? { scripted: true } : {}),
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

  /** The connection dropped: nobody is audibly speaking any more, and half-received transcripts restart. */
  connectionLost(): void {
    this.setUser(false);
    this.setAssistant(false);
    this.partial.clear();
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
