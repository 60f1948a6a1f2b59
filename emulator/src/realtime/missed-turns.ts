import type { ServerEventOf } from 'kb-voice/schemas';

type Completed = ServerEventOf<'turn.completed'>;

/** Completions kept per session at most (the newest): a reconnection tells at most this many again. */
export const MISSED_PER_SESSION = 8;
/** Sessions with completions kept at most (the oldest forgotten): sessions that never reconnect cost nothing lasting. */
export const MISSED_SESSIONS = 256;

/**
 * Turn completions that never reached the caller: the turn ended after its connection closed (a
 * dropped path, a reconnection replacing the connection mid-answer). The session's next connection
 * tells them right after `session.ready` (`resent: true`), so a client does not wait forever for a
 * turn it saw start. Bounded both ways; taking a session's completions forgets them.
 */
export class MissedTurns {
  readonly #bySession = new Map<string, Completed[]>();

  add(sessionId: string, event: Completed): void {
    const list = this.#bySession.get(sessionId) ?? [];
    this.#bySession.delete(sessionId); // re-inserted: the newest session last
    list.push(event);
    if (list.length > MISSED_PER_SESSION) list.shift();
    this.#bySession.set(sessionId, list);
    if (this.#bySession.size > MISSED_SESSIONS) this.#bySession.delete(this.#bySession.keys().next().value!);
  }

  take(sessionId: string): Completed[] {
    const list = this.#bySession.get(sessionId) ?? [];
    this.#bySession.delete(sessionId);
    return list;
  }
}
