import { ApiError } from '../api/errors.js';
import type { VoiceSessionApi } from '../client/report.js';
import type { RealtimeSessionIn } from '../schemas/realtime.js';
import type { MessageRatingIn, MessageRatingQuery } from '../schemas/sessions.js';
import type { Interaction } from './expectations.js';

/** How the next signaling request fails. */
export type SignalingFailure =
  | { status: number; detail?: string; retryAfterSeconds?: number }
  | { network: true };

/** What the fake API needs from the service it belongs to. */
export interface ScriptedApiOptions {
  /** Result of the E1 warmup (default `{ success: true }`). */
  warmup?: 'ok' | 'failed' | 'hang' | undefined;
  /** The session id a new session (an offer without `session_id`) gets. */
  newSessionId(): string;
  /** Every request is observed (offers and warmups) for the expectations. */
  observe(interaction: Interaction): void;
}

/**
 * The scripted service's fake API (`VoiceSessionApi`): signaling answers (or fails as scripted,
 * with the API client's own `ApiError`), the E1 warmup, and empty reports. No network.
 */
export class ScriptedApi implements VoiceSessionApi {
  /** Every signaling request (offer) received. */
  readonly offers: RealtimeSessionIn[] = [];
  warmupCalls = 0;
  /** Stored messages by id (E17): what `reply()` recorded, with the references its script supplied. */
  readonly messages = new Map<string, { id: string; session_id: string; question: string; answer: string; reference_list: unknown; rating: number | null; feedback_content: string | null }>();
  /** Every E6 rating received, in order. */
  readonly ratings: Array<{ query: MessageRatingQuery; body: MessageRatingIn | undefined }> = [];
  private failures: SignalingFailure[] = [];
  private hold: Promise<void> | undefined;

  constructor(private readonly options: ScriptedApiOptions) {}

  readonly realtime: VoiceSessionApi['realtime'] = {
    connect: async (_aiId, body) => {
      this.offers.push(body);
      this.options.observe({ kind: 'offer', data: body });
      if (this.hold) await this.hold;
      const failure = this.failures.shift();
      if (failure) throw signalingError(failure);
      return { session_id: body.session_id ?? this.options.newSessionId(), type: 'answer' as const, sdp: 'v=0 scripted answer' };
    },
    warmup: () => {
      this.warmupCalls++;
      this.options.observe({ kind: 'warmup', data: {} });
      if (this.options.warmup === 'hang') return new Promise(() => undefined);
      return Promise.resolve({ success: this.options.warmup !== 'failed' });
    },
    usage: async () => ({ bot_id: 'scripted', session_count: 0, sessions: [] }),
    sessionCosts: async () => ({ bot_id: 'scripted', session_count: 0, total_cost: 0, sessions: [] }),
    audio: async (_aiId, query) => ({ session_id: query.session_id, segments: [] }),
  };

  /** E17, E18 and E6 over the stored messages (a message not stored is a 404, as from the service). */
  readonly sessions: NonNullable<VoiceSessionApi['sessions']> = {
    message: async (_aiId, messageId) => this.stored(messageId),
    references: async (_aiId, query) => {
      const list = this.stored(query.message_id).reference_list;
      return { message_id: query.message_id, references: Array.isArray(list) ? list : [] };
    },
    rate: async (_aiId, query, body) => {
      this.ratings.push({ query, body });
      const message = this.stored(query.message_id);
      message.rating = query.rating === 0 ? null : query.rating;
      if (body?.feedback_content !== undefined) message.feedback_content = body.feedback_content;
      return { ...message };
    },
  };

  private stored(messageId: string) {
    const message = this.messages.get(messageId);
    if (!message) throw new ApiError('http_error', `Message ${messageId} not found (scripted 404)`, { status: 404, body: { detail: 'Message not found' } });
    return message;
  }

  /** The next signaling requests fail like this, in order. */
  failSignaling(failures: readonly SignalingFailure[]): void {
    this.failures.push(...failures);
  }

  /** Signaling waits until the returned function is called. */
  holdSignaling(): () => void {
    let release!: () => void;
    this.hold = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.hold = undefined;
      release();
    };
  }
}

/** The ApiError the API client would throw for `failure` (`retryAfterMs` as it parses `Retry-After`). */
function signalingError(failure: SignalingFailure): ApiError {
  if ('network' in failure) return new ApiError('network_error', 'Signaling could not reach the server (scripted)');
  const detail = failure.detail ?? `scripted ${failure.status}`;
  const retryAfterMs = failure.retryAfterSeconds !== undefined ? failure.retryAfterSeconds * 1000 : undefined;
  return new ApiError('http_error', `Signaling failed with ${failure.status}: ${detail}`, { status: failure.status, body: { detail }, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}
