import type { MessageRatingIn, MessageRatingQuery } from '../../schemas/sessions.js';
import type { Clock } from '../../clock.js';
import type { Report, Turn } from '../events.js';
import type { Source } from './normalize.js';

/**
 * The message endpoints a VoiceSession uses for sources and ratings (`VoiceSessionApi.sessions`):
 * `createApiClient(...)`'s `sessions` fits. Without it turns keep `sources` undefined and `rate()`
 * rejects with `not_supported`.
 */
export interface MessagesApi {
  /** E17: the stored message of a turn. */
  message(aiId: string, messageId: string, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** E18: the references behind an answer, asked when E17 names none it recognizes. */
  references?(aiId: string, query: { message_id: string }, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** E6: rates a message. */
  rate?(aiId: string, query: MessageRatingQuery, body?: MessageRatingIn): Promise<unknown>;
}

/** What `session.rate()` sends: 1 good, -1 bad, 0 cleared, with optional feedback text. */
export interface TurnRating {
  rating: 1 | -1 | 0;
  feedback?: string;
}

/**
 * The session's list of finished turns (its turn tracker's): the reader puts a turn carrying its
 * sources in place of the turn it read them for (the session then publishes a new snapshot).
 */
export interface TurnStore {
  readonly turns: Turn[];
}

/** What the sources feature needs of the session: its finished turns as they come, and its service session id. */
export interface SourcesSession {
  on(event: 'turn', listener: (turn: Turn) => void): unknown;
  readonly sessionId: string | undefined;
}

/** The session's options the sources feature reads: the robot, the api and the clock. */
export interface SourcesTarget {
  aiId: string;
  api: { sessions?: MessagesApi };
  clock?: Clock;
}

/** The sources effect of one session: reads each finished turn's sources (it listens to `turn`), sends ratings. */
export interface SourcesEffect {
  rate(turnId: number, rating: TurnRating): Promise<void>;
}

/**
 * The `sources` option of VoiceSession (called once by the session with itself, its options, its turn
 * tracker and the `notify` through which effects report; positional, to keep the core entry small): `withSources()` from `kb-voice/sources`. It is its own
 * entry so an app without sources does not ship their code (the core entry's budget).
 */
export type SourcesFeature = (session: SourcesSession, target: SourcesTarget, turns: TurnStore, report: Report) => SourcesEffect;

export type { Source };
