/**
 * Time as the session sees it. Every time rule of a call (attempt limits, backoff, heartbeat,
 * warmup deferral, graceful end) reads this clock, so tests drive them on fake time.
 */
export interface Clock {
  /** Milliseconds since the epoch (`Date.now()` by default; timestamps such as `Turn.completedAt` read it too). */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The platform's timers, looked up at call time (so test runners that swap them are honoured). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Resolves after `ms` of `clock` time. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
}

/** Rejects with `error()` after `ms` of `clock` time; `clear()` stops the timer. The promise never counts as unhandled. */
export function deadline(clock: Clock, ms: number, error: () => Error): { promise: Promise<never>; clear(): void } {
  let timer: unknown;
  const promise = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(error()), ms);
  });
  promise.catch(() => undefined);
  return { promise, clear: () => clock.clearTimeout(timer) };
}
