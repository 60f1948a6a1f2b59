import { VoiceSessionError } from './errors.js';
import { isFinal, type SessionState } from './state.js';

/** The service's session id, once the first signaling answer named it, and the callers waiting for it meanwhile (report()). */
export class SessionId {
  private _value: string | undefined;
  private waiters: Array<{ resolve(id: string): void; reject(error: VoiceSessionError): void }> = [];

  get value(): string | undefined {
    return this._value;
  }

  /** An answer named the session: true the first time only (the id never changes afterwards). */
  name(id: string): boolean {
    if (this._value) return false;
    this._value = id;
    for (const waiter of this.waiters.splice(0)) waiter.resolve(id);
    return true;
  }

  /** The session id, waiting for it while the call in `state` is connecting. */
  when(state: SessionState): Promise<string> {
    if (this._value) return Promise.resolve(this._value);
    if (state.status === 'idle') return Promise.reject(new VoiceSessionError('not_connected', 'No call yet: call start() first'));
    if (isFinal(state)) return Promise.reject(noSession(state));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The call is over (`state`): callers still waiting for a session id will not get one. */
  settle(state: SessionState): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(noSession(state));
  }
}

function noSession(state: SessionState): VoiceSessionError {
  return new VoiceSessionError('no_session', `The call ${state.status} before the service named a session: nothing to report`, state.status === 'failed' ? { cause: state.error } : {});
}
