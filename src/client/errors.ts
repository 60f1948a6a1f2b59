import { KbVoiceError } from '../api/errors.js';

/** Stable codes of {@link VoiceSessionError}: switch on these, not on messages. */
export type VoiceErrorCode =
  /** The user or the browser refused microphone access. */
  | 'microphone_denied'
  /** No microphone, it is in use elsewhere, or the constraints cannot be met. */
  | 'microphone_unavailable'
  /** The offer/answer exchange with the service (or relay) failed. */
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
  /** The peer sent a data-channel message that is not protocol v1. */
  | 'protocol_error'
  /** The service reported an error event on the data channel (`serverCode` says which). */
  | 'server_error'
  /** The browser's autoplay policy blocked the assistant's audio: call `resumePlayback()` from a user gesture. */
  | 'playback_blocked'
  /** The operation needs a connected call. */
  | 'not_connected';

/** Error of the voice session controller: a stable `code` and the underlying `cause`. */
export class VoiceSessionError extends KbVoiceError {
  declare readonly code: VoiceErrorCode;
  /** For `server_error`: the `code` of the service's error event. */
  readonly serverCode: string | undefined;
  constructor(code: VoiceErrorCode, message: string, options: { cause?: unknown; serverCode?: string } = {}) {
    super(code, message, { cause: options.cause });
    this.name = 'VoiceSessionError';
    this.serverCode = options.serverCode;
  }
}
