import { RelayError } from './errors.js';

/**
 * Users looked at per `take` by the background sweep (see `SessionSlots`): a constant, so the cost
 * of a new session does not grow with the number of users held, and the map of users still shrinks
 * faster than new users can grow it (at most one new user per `take`).
 */
export const SWEEP_STEP = 2;

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
 *
 * Work per call is bounded by the user's own slots (at most `max`) plus {@link SWEEP_STEP} other
 * users: users whose slots all expired are dropped by a sweep that resumes where the last `take`
 * stopped, never by a scan of every holder.
 */
export class SessionSlots {
  readonly #held = new Map<string, SessionHold[]>();
  #sweep: Iterator<[string, SessionHold[]]> | undefined;

  constructor(
    readonly max: number,
    readonly holdMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes a slot for `user` (429 `RelayError` when all are held); `release(hold)` gives it back.
   * `sessionId`: the session it is for when already known (a signaling under a granted id).
   */
  take(user: string, sessionId?: string): SessionHold {
    const now = this.now();
    this.#sweepSome(now);
    const live = this.#live(user, this.#held.get(user) ?? [], now);
    if (live.length >= this.max) {
      const seconds = Math.max(1, Math.ceil((live[0]!.until - now) / 1000));
      throw new RelayError(429, `Too many concurrent sessions for this user (at most ${this.max})`, `user holds ${live.length} of ${this.max} realtime session slots`, { 'retry-after': String(seconds) });
    }
    const hold: SessionHold = { until: now + this.holdMs, sessionId };
    live.push(hold);
    this.#held.set(user, live);
    return hold;
  }

  /** Whether `user` holds a live slot for `sessionId` on this instance. */
  holds(user: string, sessionId: string): boolean {
    const now = this.now();
    return this.#held.get(user)?.some((h) => h.sessionId === sessionId && h.until > now) ?? false;
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

  /** How many users have an entry, live or not yet swept (tests: memory stays bounded by active users). */
  get users(): number {
    return this.#held.size;
  }

  /** Looks at the next {@link SWEEP_STEP} users of the map (wrapping around), dropping those with no live slot. */
  #sweepSome(now: number): void {
    for (let i = 0; i < SWEEP_STEP && this.#held.size > 0; i++) {
      let step = this.#sweep?.next();
      if (!step || step.done) {
        this.#sweep = this.#held.entries();
        step = this.#sweep.next();
        if (step.done) return;
      }
      const [user, list] = step.value;
      this.#live(user, list, now);
    }
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
