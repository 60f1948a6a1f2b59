import { ApiError, KbVoiceError } from '../api/errors.js';
import { isTransient } from '../api/retryable.js';

/** Stable codes of {@link VoiceSessionError}: switch on these, not on messages. */
export type VoiceErrorCode =
  /** The user or the browser refused microphone access. */
  | 'microphone_denied'
  /** No microphone, it is in use elsewhere, or the constraints cannot be met. */
  | 'microphone_unavailable'
  /** This browser has no WebRTC; found before the microphone is opened. */
  | 'webrtc_unsupported'
  /** The relay or service refused the caller (401/403): not logged in, wrong key. */
  | 'unauthorized'
  /** The robot (or the session to continue) does not exist (404). */
  | 'not_found'
  /** Too many requests (429); `retryAfterMs` says when to try again, if the service said (`Retry-After`). */
  | 'rate_limited'
  /**
   * The service or relay is unreachable or failing (502/503/504, network error, timeout); after a
   * 503 (e.g. the service is at capacity), `retryAfterMs` says when to try again, if it said.
   */
  | 'service_unavailable'
  /** Any other failure of the offer/answer exchange. */
  | 'signaling_failed'
  /** Signaling worked but the WebRTC connection did not come up in time. */
  | 'connection_failed'
  /** An established call dropped and could not be restored within `reconnectTimeoutMs`. */
  | 'connection_lost'
  /**
   * A warning, the call goes on: a reconnection reached a service that had lost the session's state
   * (e.g. it restarted). Turns already received are kept; the service's turn numbers start again at 1.
   */
  | 'session_reset'
  /**
   * A warning, the call goes on: the microphone's track ended (device unplugged, Bluetooth off,
   * taken by another app); the session switches to the default microphone on the same connection.
   */
  | 'device_lost'
  /** The audio output chosen with `setOutputDevice()` cannot be used (gone, or the browser refused it; `cause` says why). */
  | 'device_unavailable'
  /** This browser cannot do what was asked (e.g. `setOutputDevice` without `HTMLMediaElement.setSinkId`). */
  | 'not_supported'
  /** The peer sent a data-channel message that is not protocol v1 (or broke a protocol rule or limit). */
  | 'protocol_error'
  /** The service reported an error event on the data channel (`serverCode` says which). */
  | 'server_error'
  /** The browser's autoplay policy blocked the assistant's audio: call `resumePlayback()` from a user gesture. */
  | 'playback_blocked'
  /** The operation needs a connected call. */
  | 'not_connected'
  /** start() on a session that already ended or failed: create a new VoiceSession. */
  | 'session_ended'
  /** report() on a session that ended before the service named it: there is nothing to report. */
  | 'no_session'
  /** report(): an API call failed for another reason (`cause` says which). */
  | 'report_failed'
  /** rate(): no finished turn has that number in this session. */
  | 'unknown_turn'
  /** rate(): the service stored no message for that turn (its `messageId` is empty), so there is nothing to rate. */
  | 'no_message'
  /** rate(): the E6 request failed for another reason (`cause` says which). */
  | 'rating_failed';

/** Error of the voice session controller: a stable `code` and the underlying `cause`. */
export class VoiceSessionError extends KbVoiceError {
  declare readonly code: VoiceErrorCode;
  /** For `server_error`: the `code` of the service's error event. */
  readonly serverCode: string | undefined;
  /** HTTP status behind `unauthorized`, `not_found`, `rate_limited`, `service_unavailable`, `signaling_failed`. */
  readonly status: number | undefined;
  /** For `rate_limited` (429) and `service_unavailable` (503): the service's `Retry-After`, in ms, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(code: VoiceErrorCode, message: string, options: { cause?: unknown; serverCode?: string; status?: number; retryAfterMs?: number } = {}) {
    super(code, message, { cause: options.cause });
    this.name = 'VoiceSessionError';
    this.serverCode = options.serverCode;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The HTTP status behind a failure: an ApiError's, or a custom `api` object's own error carrying `status`. */
function statusOf(err: unknown): number | undefined {
  const raw = (err as { status?: unknown } | null | undefined)?.status;
  return typeof raw === 'number' ? raw : undefined;
}

/**
 * What a failed request means for trying again (signaling, resume, recovery, trickle), by the
 * library's one retry rule (api/retryable.ts, the API client's too). `retryable`: no answer
 * (network, timeout) or a transient status (408, 429, 500, 502, 503, 504): the same request may
 * work later. Otherwise the service refused it (any other status: gone, not allowed, malformed,
 * not implemented) and repeating it cannot help; `status` says which. `retryAfterMs`: when the
 * service said when to come back (429, 503).
 */
export function classifyFailure(err: unknown): { status: number | undefined; retryable: boolean; retryAfterMs?: number } {
  const status = statusOf(err);
  const after = (err as { retryAfterMs?: unknown } | null | undefined)?.retryAfterMs;
  return { status, retryable: isTransient(status), ...(typeof after === 'number' ? { retryAfterMs: after } : {}) };
}

/**
 * Maps a failed API call (signaling, report) to a precise code; `fallback` for anything else.
 * `cause` keeps the original error. `retryAfterMs` (429, 503) is the ApiError's, parsed once by
 * the API client from the response's `Retry-After`.
 */
export function fromApiFailure(err: unknown, what: string, fallback: VoiceErrorCode = 'signaling_failed'): VoiceSessionError {
  if (err instanceof VoiceSessionError) return err;
  const reason = (err as Error | undefined)?.message ?? String(err);
  const status = statusOf(err);
  const apiCode = err instanceof ApiError ? err.code : undefined;
  if (status !== undefined || apiCode) {
    const after = err instanceof ApiError ? err.retryAfterMs : undefined;
    const options = { cause: err, ...(status !== undefined ? { status } : {}), ...(after !== undefined && (status === 429 || status === 503) ? { retryAfterMs: after } : {}) };
    const wait = options.retryAfterMs !== undefined ? `, retry after ${options.retryAfterMs} ms` : '';
    if (status === 401 || status === 403) return new VoiceSessionError('unauthorized', `${what}: not authorized (${status}): ${reason}`, options);
    if (status === 404) return new VoiceSessionError('not_found', `${what}: not found (404): ${reason}`, options);
    if (status === 429) return new VoiceSessionError('rate_limited', `${what}: rate limited (429)${wait}`, options);
    if (status === 502 || status === 503 || status === 504 || apiCode === 'network_error' || apiCode === 'timeout') {
      return new VoiceSessionError('service_unavailable', `${what}: the service is unavailable${status !== undefined ? ` (${status})` : ''}${wait}: ${reason}`, options);
    }
    return new VoiceSessionError(fallback, `${what}: ${reason}`, options);
  }
  return new VoiceSessionError(fallback, `${what}: ${reason}`, { cause: err });
}
