import { RelayError } from './errors.js';

/** Past this many users held, expired entries are swept on the next `take` (memory stays bounded by active users). */
const SWEEP_AT = 10_000;

/** One session held by a user: until when, and under which id once the upstream created it. */
export interface SessionHold {
  until: number;
  sessionId: string | undefined;
}

/**
 * The per-user limit of concurrent realtime sessions (`maxSessionsPerUser`), for one relay instance.
 * The relay never sees a session end (media flows between the browser and the upstream), so a
 * session holds its slot for `holdMs` from its creation, or until its signaling fails or the user
 * deletes it (E15). One more session than the limit answers 429 with `Retry-After`: the seconds
 * until the user's oldest slot frees. `now` is injected for tests.
 */
export class SessionSlots {
  readonly #held = new Map<string, SessionHold[]>();

  constructor(
    readonly max: number,
    readonly holdMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a slot for `user` (429 `RelayError` when all are held); `release(hold)` gives it back. */
  take(user: string): SessionHold {
    const now = this.now();
    if (this.#held.size > SWEEP_AT) for (const [u, list] of this.#held) if (this.#live(u, list, now).length === 0) this.#held.delete(u);
    const live = this.#live(user, this.#held.get(user) ?? [], now);
    if (live.length >= this.max) {
      const seconds = Math.max(1, Math.ceil((live[0]!.until - now) / 1000));
      throw new RelayError(429, `Too many concurrent sessions for this user (at most ${this.max})`, `user holds ${live.length} of ${this.max} realtime session slots`, { 'retry-after': String(seconds) });
    }
    const hold: SessionHold = { until: now + this.holdMs, sessionId: undefined };
    live.push(hold);
    this.#held.set(user, live);
    return hold;
  }

  /** Gives a slot back (the signaling failed). Idempotent. */
  release(user: string, hold: SessionHold): void {
    const list = this.#held.get(user);
    if (!list) return;
    const i = list.indexOf(hold);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.#held.delete(user);
  }

  /** Gives back the slot of a session the user deleted. */
  releaseSession(user: string, sessionId: string): void {
    const hold = this.#held.get(user)?.find((h) => h.sessionId === sessionId);
    if (hold) this.release(user, hold);
  }

  /** How many slots `user` holds now (tests, docs). */
  held(user: string): number {
    return this.#live(user, this.#held.get(user) ?? [], this.now()).length;
  }

  #live(user: string, list: SessionHold[], now: number): SessionHold[] {
    const live = list.filter((h) => h.until > now);
    if (live.length !== list.length) {
      if (live.length) this.#held.set(user, live);
      else this.#held.delete(user);
    }
    return live;
  }
}
