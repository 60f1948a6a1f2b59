import { ValidationError } from '../../api/errors.js';
import { fromApiFailure, VoiceSessionError } from '../errors.js';
import type { Turn } from '../events.js';
import type { MessagesApi, TurnRating } from './api.js';

/** Longest feedback text `rate()` sends (characters); longer is refused before any request. */
export const MAX_FEEDBACK_CHARS = 1000;

const invalid = (loc: string, msg: string) => new ValidationError([{ loc: ['rating', loc], msg, type: 'value_error' }], { local: true });

/**
 * Ratings of a session's turns (E6 with `source=widget`). Calls for one message are sent one
 * after the other, so the last call is the one the service keeps; it needs no live call.
 */
export class Ratings {
  private readonly last = new Map<string, Promise<unknown>>();

  constructor(
    private readonly target: { aiId: string; api: { sessions?: MessagesApi } },
    private readonly turns: () => readonly Turn[],
    private readonly sessionId: () => string | undefined,
  ) {}

  /**
   * Rates the turn numbered `turnId` (the latest turn with that number). Rejects with a local
   * ValidationError for a bad rating or feedback over {@link MAX_FEEDBACK_CHARS}, `unknown_turn`,
   * `no_message` (the service stored no message for it), `not_supported` (no E6 in `api`), or the
   * API failure's code (`rating_failed` otherwise), `cause` the original error.
   */
  async rate(turnId: number, { rating, feedback }: TurnRating): Promise<void> {
    if (rating !== 1 && rating !== -1 && rating !== 0) throw invalid('rating', 'must be 1, -1 or 0');
    if (feedback !== undefined && (typeof feedback !== 'string' || feedback.length > MAX_FEEDBACK_CHARS)) throw invalid('feedback', `must be a string of at most ${MAX_FEEDBACK_CHARS} characters`);
    const turn = [...this.turns()].reverse().find((t) => t.id === turnId);
    if (!turn) throw new VoiceSessionError('unknown_turn', `No finished turn ${turnId} in this session`);
    const sessionId = this.sessionId();
    if (!turn.messageId || !sessionId) throw new VoiceSessionError('no_message', `The service stored no message for turn ${turnId}: it cannot be rated`);
    const api = this.target.api.sessions;
    if (!api?.rate) throw new VoiceSessionError('not_supported', 'The api object has no sessions.rate (E6)');
    const query = { session_id: sessionId, message_id: turn.messageId, rating, source: 'widget' as const };
    const body = feedback !== undefined ? { feedback_content: feedback } : undefined;
    // After the previous call for this message settled, whatever it did: the last call wins.
    const sent = (this.last.get(turn.messageId) ?? Promise.resolve()).catch(() => undefined).then(() => api.rate!(this.target.aiId, query, body));
    this.last.set(turn.messageId, sent);
    try {
      await sent;
    } catch (err) {
      throw fromApiFailure(err, `Rating turn ${turnId}`, 'rating_failed');
    }
  }
}
