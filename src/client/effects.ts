import type { Transport } from './transport.js';

/** What an effect sees of the link that carries the call (an Attempt). */
export interface CallLink {
  readonly transport: Transport;
  /** The service's id of the session, once its answer named it. */
  readonly sessionId: string | undefined;
}

/**
 * The one shape of a VoiceSession collaborator that follows the call's lifecycle. Effects report
 * back through the function they were given (a `Report`, or their own narrow callbacks wired in
 * wiring.ts), never by calling into the session or emitting its events; the session calls these
 * hooks at its own transitions, in the order of `effects` in wiring.ts.
 *
 * To add one: a file with a class implementing this interface (constructed with what it reads and
 * the report it makes), one line in wiring.ts building it and one entry in its `effects` list (plus
 * a `SessionEvents` event and a snapshot field when it reports something new).
 */
export interface SessionEffect {
  /** The call is connected over `link` (the first time, and after every recovery). */
  connected?(link: CallLink): void;
  /** The current attempt dropped while connected: a recovery begins. */
  lost?(): void;
  /** The call is over (ended or failed): release everything. Called once. */
  close?(): void;
}
