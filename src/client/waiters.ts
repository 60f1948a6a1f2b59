import type { Clock } from './clock.js';

/** Callers waiting for one kind of moment (a pong, the end of the assistant's speech), each with its own time limit. */
export class Waiters {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /**
   * Resolves true when {@link wake} is called, false after `ms`. `then` runs once the waiter is
   * registered (so a quick answer to it is not missed); if it throws, the wait ends as false.
   */
  wait(ms: number, then?: () => void): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const done = (woken: boolean) => {
        this.clock.clearTimeout(timer);
        this.waiting.delete(wake);
        resolve(woken);
      };
      const wake = () => done(true);
      const timer = this.clock.setTimeout(() => done(false), ms);
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
