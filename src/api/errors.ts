import type { ValidationErrorItem } from '../schemas/index.js';

/** Base class of every error kb-voice throws: a stable `code` and the original `cause`. */
export class KbVoiceError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KbVoiceError';
    this.code = code;
  }
}

/**
 * A 422: the request did not pass validation. `detail` is the spec's array of `{ loc, msg, type }`.
 * `local` is true when the client caught it before sending anything.
 */
export class ValidationError extends KbVoiceError {
  override readonly code = 'validation_error';
  readonly status = 422;
  readonly detail: ValidationErrorItem[];
  readonly local: boolean;
  constructor(detail: ValidationErrorItem[], options: { local: boolean; cause?: unknown }) {
    const first = detail[0];
    super('validation_error', first ? `Invalid request: ${first.loc.join('.')}: ${first.msg}${detail.length > 1 ? ` (+${detail.length - 1} more)` : ''}` : 'Invalid request', options);
    this.name = 'ValidationError';
    this.detail = detail;
    this.local = options.local;
  }
}

/** Stable codes of {@link ApiError}. */
export type ApiErrorCode = 'http_error' | 'timeout' | 'network_error' | 'invalid_response';

/**
 * Any other failure of an API call: an HTTP status, a timeout, a network error or a response that
 * failed validation (or was cut off, or came with no body where one is required).
 *
 * It never holds the request: `cause` is the network error, the schema error or the read error,
 * never the HTTP library's error object (that one keeps the request's headers, the API key among
 * them, and `console.error(error)` would print it).
 */
export class ApiError extends KbVoiceError {
  declare readonly code: ApiErrorCode;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** Parsed JSON body (or text) of the response, when one arrived. */
  readonly body: unknown;
  /**
   * How long the service asked the caller to wait (its `Retry-After`, delta-seconds or HTTP-date, the
   * date measured against the response's own `Date`), in ms; undefined when it did not say.
   */
  readonly retryAfterMs: number | undefined;
  constructor(code: ApiErrorCode, message: string, options: { status?: number; body?: unknown; retryAfterMs?: number | undefined; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.name = 'ApiError';
    this.status = options.status;
    this.body = options.body;
    this.retryAfterMs = options.retryAfterMs;
  }
}
