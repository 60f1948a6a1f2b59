/** A started time limit of {@link Deadlines} (a handle for `clear`). */
export interface Deadline {
  readonly at: number;
}

const NOTHING = () => {};

/** A pending limit: a node of the list of pending limits, in start order. */
class Limit implements Deadline {
  prev: Limit | null;
  next: Limit | null = null;
  pending = true;

  constructor(
    readonly at: number,
    /** Dropped once the limit leaves the list: a handle a request still holds keeps nothing else alive. */
    public expire: () => void,
    prev: Limit | null,
  ) {
    this.prev = prev;
  }
}

/**
 * Time limits that all last `ms`, on one timer instead of one per call (a timer per upstream call
 * cost the relay a timer object, two timer-list updates and a native clock read per request).
 * Limits started later end later, so the pending ones are kept in start order and only the earliest
 * has a timer; when it fires, every limit that has run out expires, in start order, and the timer is
 * set for the next one. When the last pending limit is cleared the timer stays, unreferenced (it holds
 * no process open), and goes away when it fires with nothing due: a relay whose hook answers at once,
 * or whose requests come one at a time, clears every limit it starts, and a timer set and cleared for
 * each of those was again a timer per request (two timer-list updates, a timer object and the native
 * re-arm: the authorize hook's limit showed in bench 3's CPU profiles).
 * If the wall clock steps back, a limit started after the step waits for the ones before it: it may
 * end late, by at most the step, never early.
 *
 * The pending limits are a doubly linked list whose links are cut when a limit leaves it, not a
 * `Set`: a `Set` with entries coming and going replaces its hash table every few requests, and each
 * replaced table keeps a link to the next one and the entries it held. Once one table had been
 * promoted to the old generation (a relay idle for a while), that chain reached every later table
 * and, through the limits' `expire` closures, every request's objects: each scavenge kept them and
 * then promoted them, ~5.5 KB per request, until the next full GC. Under load that was a third of
 * the relay's CPU per request over a bare proxy's (docs/relay.md "What a request costs"). A cleared
 * limit here points at nothing, so a request's objects die young.
 */
export class Deadlines {
  #head: Limit | null = null;
  #tail: Limit | null = null;
  /** Referenced while a limit is pending; kept unreferenced while none is (see above). */
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly ms: number) {}

  /** Starts a limit: `expire` runs once `ms` have passed, unless `clear` ran first. */
  start(expire: () => void): Deadline {
    const idle = this.#head === null;
    const limit = new Limit(Date.now() + this.ms, expire, this.#tail);
    if (this.#tail) this.#tail.next = limit;
    else this.#head = limit;
    this.#tail = limit;
    if (this.#timer === undefined) this.#arm(this.ms);
    else if (idle) this.#hold(true);
    return limit;
  }

  /** Ends a limit without expiring it (idempotent). */
  clear(deadline: Deadline): void {
    const limit = deadline as Limit;
    if (!limit.pending) return;
    this.#unlink(limit);
    if (this.#head === null && this.#timer !== undefined) this.#hold(false);
  }

  /** How many limits are running (for tests: it walks the list). */
  get size(): number {
    let n = 0;
    for (let limit = this.#head; limit; limit = limit.next) n++;
    return n;
  }

  #unlink(limit: Limit): void {
    const { prev, next } = limit;
    if (prev) prev.next = next;
    else this.#head = next;
    if (next) next.prev = prev;
    else this.#tail = prev;
    limit.prev = limit.next = null;
    limit.expire = NOTHING;
    limit.pending = false;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), ms);
  }

  /** Refs or unrefs the timer where timers have that (Node, Bun; a number elsewhere, where no process waits on it). */
  #hold(on: boolean): void {
    const timer = this.#timer as { ref?: () => void; unref?: () => void } | undefined;
    if (on) timer?.ref?.();
    else timer?.unref?.();
  }

  #fire(): void {
    this.#timer = undefined;
    const now = Date.now();
    const due: (() => void)[] = [];
    for (let limit = this.#head; limit; limit = this.#head) {
      if (limit.at > now) {
        this.#arm(limit.at - now);
        break;
      }
      due.push(limit.expire);
      this.#unlink(limit);
    }
    for (const expire of due) expire();
  }
}
