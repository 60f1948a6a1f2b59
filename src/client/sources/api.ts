import type { MessageRatingIn, MessageRatingQuery } from '../../schemas/sessions.js';
import type { Clock } from '../clock.js';
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

/** Where the reader puts a turn with its sources (the session's turn tracker). */
export interface TurnStore {
  readonly turns: readonly Turn[];
  replace(old: Turn, next: Turn): boolean;
}

/** What a VoiceSession hands the sources feature (its effect reports back through `report`, like every effect). */
export interface SourcesHost {
  target: { aiId: string; api: { sessions?: MessagesApi } };
  clock: Clock;
  turns: TurnStore;
  report: Report;
  sessionId(): string | undefined;
}

/** The sources effect of one session: reads each finished turn's sources, sends ratings. */
export interface SourcesEffect {
  read(turn: Turn): void;
  rate(turnId: number, rating: TurnRating): Promise<void>;
}

/**
 * The `sources` option of VoiceSession: `withSources()` from `kb-voice/sources`. It is its own
 * entry so an app without sources does not ship their code (the core entry's budget).
 */
export type SourcesFeature = (host: SourcesHost) => SourcesEffect;

export type { Source };
