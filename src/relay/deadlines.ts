/** A started time limit of {@link Deadlines}. */
export interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

/**
 * Time limits that all last `ms`, on one timer instead of one per call (a timer per upstream call
 * cost the relay a timer object, two timer-list updates and a native clock read per request).
 * Limits started later end later, so the pending ones are kept in start order (a `Set`) and only
 * the earliest has a timer; when it fires, every limit that has run out expires, in start order, and
 * the timer is set for the next one. No timer is left when none is pending (a process can exit).
 * If the wall clock steps back, a limit started after the step waits for the ones before it: it may
 * end late, by at most the step, never early.
 */
export class Deadlines {
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly ms: number) {}

  /** Starts a limit: `expire` runs once `ms` have passed, unless `clear` ran first. */
  start(expire: () => void): Deadline {
    const deadline: Deadline = { at: Date.now() + this.ms, expire };
    this.#pending.add(deadline);
    if (this.#timer === undefined) this.#arm(this.ms);
    return deadline;
  }

  /** Ends a limit without expiring it (idempotent). */
  clear(deadline: Deadline): void {
    if (!this.#pending.delete(deadline) || this.#pending.size > 0 || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** How many limits are running (for tests). */
  get size(): number {
    return this.#pending.size;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), ms);
  }

  #fire(): void {
    this.#timer = undefined;
    const now = Date.now();
    const due: Deadline[] = [];
    for (const deadline of this.#pending) {
      if (deadline.at > now) {
        this.#arm(deadline.at - now);
        break;
      }
      this.#pending.delete(deadline);
      due.push(deadline);
    }
    for (const deadline of due) deadline.expire();
  }
}
