import type { VoiceSessionError } from './errors.js';

/** Why a call ended: `local` (end() was called), `aborted` (the AbortSignal fired), `connection_lost`. */
export type EndReason = 'local' | 'aborted' | 'connection_lost';

/** The session's state; `status` discriminates. `ended` and `failed` are final. */
export type SessionState =
  | { status: 'idle' }
  | { status: 'connecting' }
  | { status: 'connected'; sessionId: string }
  | { status: 'reconnecting'; sessionId: string; attempt: number }
  | { status: 'ended'; sessionId?: string; reason: EndReason }
  | { status: 'failed'; error: VoiceSessionError };

export type SessionStatus = SessionState['status'];

/** Result of the E1 warmup fired by start(): it never affects the call itself. */
export type WarmupStatus = 'idle' | 'pending' | 'ok' | 'failed';

const NEXT: Record<SessionStatus, readonly SessionStatus[]> = {
  idle: ['connecting', 'ended'],
  connecting: ['connected', 'ended', 'failed'],
  connected: ['reconnecting', 'ended', 'failed'],
  reconnecting: ['reconnecting', 'connected', 'ended', 'failed'],
  ended: [],
  failed: [],
};

/** Whether the state machine allows going from `from` to `to`. */
export function canTransition(from: SessionStatus, to: SessionStatus): boolean {
  return NEXT[from].includes(to);
}

/** True for the final states. */
export function isFinal(state: SessionState): boolean {
  return state.status === 'ended' || state.status === 'failed';
}

/** The session id a state carries, if any. */
export function sessionIdOf(state: SessionState): string | undefined {
  return 'sessionId' in state ? state.sessionId : undefined;
}
