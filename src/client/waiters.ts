import type { Clock } from '../clock.js';

/**
 * Callers waiting for one kind of moment (a pong, the end of the assistant's speech, the network
 * back, a data channel up), each with its own time limit on the clock. The client's one waiter list.
 */
export class Waiters {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /**
   * Resolves true when {@link wake} is called, false after `ms` (default: no limit). `then` runs once
   * the waiter is registered (so a quick answer to it is not missed); if it throws, the wait ends as false.
   */
  wait(ms = Number.POSITIVE_INFINITY, then?: () => void): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const done = (woken: boolean) => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        this.waiting.delete(wake);
        resolve(woken);
      };
      const wake = () => done(true);
      const timer = ms === Number.POSITIVE_INFINITY ? undefined : this.clock.setTimeout(() => done(false), ms);
      this.waiting.add(wake);
      try {
        then?.();
      } catch {
        done(false);
      }
    });
  }

  /** The moment came: every current waiter resolves. */
  wake(): void {
    for (const wake of [...this.waiting]) wake();
  }
}
