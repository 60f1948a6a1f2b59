import type { Clock } from '../clock.js';

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

/** Microtask turns given to promise chains between two timers (await chains of a session are far shorter). */
const SETTLE_TURNS = 200;

/**
 * A clock whose time moves only when the test says: pass it as the session's `clock` (or
 * `new ScriptedService({ clock })`) and every time rule of the call — attempt limits, reconnection
 * backoff, heartbeat, warmup deferral, graceful end — runs on it. {@link advance} fires due timers
 * in time order and lets the promise chains they start settle between them.
 */
export class FakeClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private ids = 0;

  /** `start`: the epoch milliseconds `now()` begins at (default 2026-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { id: ++this.ids, at: this.time + Math.max(0, ms || 0), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /** Lets pending promise chains run (no time passes). */
  async settle(): Promise<void> {
    for (let i = 0; i < SETTLE_TURNS; i++) await Promise.resolve();
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way (in order), settling promises after each. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    await this.settle();
    for (;;) {
      const next = this.timers.reduce<Timer | undefined>((a, t) => (t.at <= until && (!a || t.at < a.at || (t.at === a.at && t.id < a.id)) ? t : a), undefined);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.callback();
      await this.settle();
    }
    this.time = until;
  }
}
