import type { ServerEvent } from 'kb-voice/schemas';
import type { TurnInput } from './turn.js';
import type { VadEvent } from './vad.js';

/**
 * A data-channel dialect other than the built-in v1 protocol (the OpenAI Realtime one, in ./openai).
 * The connection keeps the media, the VAD, the turns (recognize → answer → speech → record) and the
 * recording; a dialect decides what the client says and hears: it parses client messages, decides
 * when a turn starts, and retells the turns' v1 events in its own vocabulary.
 */
export interface Dialect {
  /** The data channel is open. */
  open(): void;
  /** One message from the client. */
  message(data: unknown): void;
  /** The caller's voice activity (utterance start / end with its audio). */
  vad(event: VadEvent): void;
  /** One event of the session's turns, in v1 vocabulary, to tell the client. */
  event(event: ServerEvent): void;
}

/** What a dialect may do with its connection. */
export interface DialectHost {
  readonly sessionId: string;
  readonly robotId: string;
  /** Milliseconds since the peer was created. */
  now(): number;
  /** Sends one text message on the data channel (dropped once it is closed). */
  sendText(text: string): void;
  /** Allocates the next turn number of the session. */
  nextTurnId(): number;
  /** Starts answering `input` (the caller interrupts a turn in progress first if it wants to). */
  startTurn(input: TurnInput): void;
  /** Interrupts the turn being answered; false when there is none. */
  interrupt(): boolean;
  /** Ends the call gracefully (the turn in progress is recorded). */
  end(): Promise<void>;
}

export type DialectFactory = (host: DialectHost) => Dialect;
