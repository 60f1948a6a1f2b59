import type { VoiceSessionError } from './errors.js';

/** Why a call ended: `local` (end() was called), `aborted` (the AbortSignal fired), `connection_lost`. */
export type EndReason = 'local' | 'aborted' | 'connection_lost';

/** How a dropped call is being restored: an ICE restart of the same connection, or a new offer for the same session. */
export type ReconnectHow = 'ice-restart' | 'new-offer';

/**
 * The session's state; `status` discriminates. `ended` and `failed` are final.
 * - `connecting`: the first attempt (`attempt` is 1) opens the microphone and connects.
 * - `reconnecting`: the call dropped; `attempt` counts the tries of this recovery from 1, `how` says what this one does.
 * - `ending`: end() was called; the assistant may finish its sentence and `session.end` leaves before the link closes.
 */
export type SessionState =
  | { status: 'idle' }
  | { status: 'connecting'; attempt: number }
  | { status: 'connected'; sessionId: string }
  | { status: 'reconnecting'; sessionId: string; how: ReconnectHow; attempt: number }
  | { status: 'ending'; sessionId?: string; reason: EndReason }
  | { status: 'ended'; sessionId?: string; reason: EndReason }
  | { status: 'failed'; error: VoiceSessionError };

export type SessionStatus = SessionState['status'];

/** Result of the E1 warmup fired by start(): it never affects the call itself. */
export type WarmupStatus = 'idle' | 'pending' | 'ok' | 'failed';

/**
 * The transition table: every status a status may go to. `reconnecting -> reconnecting` is the
 * next try of one recovery; `connected -> ended` is a lost call whose ReconnectPolicy made no try
 * at all (end() always passes `ending`).
 */
export const TRANSITIONS: { readonly [S in SessionStatus]: readonly SessionStatus[] } = {
  idle: ['connecting', 'ended'],
  connecting: ['connected', 'ending', 'failed'],
  connected: ['reconnecting', 'ending', 'ended'],
  reconnecting: ['reconnecting', 'connected', 'ending', 'ended'],
  ending: ['ended'],
  ended: [],
  failed: [],
};

export const STATUSES = Object.keys(TRANSITIONS) as SessionStatus[];

/** Whether the state machine allows going from `from` to `to`. */
export function canTransition(from: SessionStatus, to: SessionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** An illegal transition: a bug in kb-voice, thrown in development builds (see {@link isDevelopment}). */
export class IllegalTransitionError extends Error {
  constructor(readonly from: SessionStatus, readonly to: SessionStatus) {
    super(`VoiceSession: illegal transition ${from} -> ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

// Module-scoped (not the global of @types/node): the browser entry imports no Node built-in and
// only reads the expression bundlers replace.
declare const process: { env: { NODE_ENV?: string } };

/**
 * Development build: `process.env.NODE_ENV` is anything but `production`. Bundlers (Vite, webpack,
 * esbuild with `define`) replace that expression at build time; Node and vitest read it at run
 * time (unset counts as development). Where it does not exist at all (a browser loading the
 * unbundled ES module) the build counts as production.
 */
export function isDevelopment(): boolean {
  try {
    return process.env.NODE_ENV !== 'production';
  } catch {
    return false;
  }
}

/**
 * Checks one transition: true when legal; an illegal one throws {@link IllegalTransitionError}
 * in development and is refused (false) in production, where the call goes on in its current state.
 */
export function checkTransition(from: SessionStatus, to: SessionStatus, strict = isDevelopment()): boolean {
  if (canTransition(from, to)) return true;
  if (strict) throw new IllegalTransitionError(from, to);
  return false;
}

/** True for the final states. */
export function isFinal(state: SessionState): boolean {
  return state.status === 'ended' || state.status === 'failed';
}

/** True while the call is live or being set up (start() returns the same promise). */
export function isLive(state: SessionState): boolean {
  return state.status === 'connecting' || state.status === 'connected' || state.status === 'reconnecting';
}

/** The session id a state carries, if any. */
export function sessionIdOf(state: SessionState): string | undefined {
  return 'sessionId' in state ? state.sessionId : undefined;
}
