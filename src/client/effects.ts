import type { Attempt } from './attempt.js';

/**
 * A collaborator of VoiceSession that follows the call's lifecycle. Effects report back through
 * the function they were given (never by calling into the session or emitting its events); the
 * session calls these hooks at its own transitions, in the order the effects were registered.
 * To add one: construct it in VoiceSession's constructor and add it to `effects` there.
 */
export interface SessionEffect {
  /** The call is connected over `attempt` (the first time, and after every recovery). */
  connected?(attempt: Attempt): void;
  /** The current attempt dropped while connected: a recovery begins. */
  lost?(): void;
  /** The call is over (ended or failed): release everything. Called once. */
  close?(): void;
}
