/** Thrown by signaling when the offer cannot be answered; `status` is the HTTP status to answer. */
export class RealtimeOfferError extends Error {
  readonly code: 'invalid_offer' | 'session_conflict' | 'signaling_timeout' | 'capacity';
  readonly status: number;
  /** For `capacity` (503): the `Retry-After` to answer, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: RealtimeOfferError['code'], status: number, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options);
    this.name = 'RealtimeOfferError';
    this.code = code;
    this.status = status;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}
