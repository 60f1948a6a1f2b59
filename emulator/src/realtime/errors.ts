/** Thrown by signaling when the offer cannot be answered; `status` is the HTTP status to answer. */
export class RealtimeOfferError extends Error {
  readonly code: 'invalid_offer' | 'session_conflict' | 'signaling_timeout';
  readonly status: number;
  constructor(code: RealtimeOfferError['code'], status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RealtimeOfferError';
    this.code = code;
    this.status = status;
  }
}
