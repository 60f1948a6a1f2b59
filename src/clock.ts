/**
 * Time as the library sees it: the one leaf module every layer that waits or reads the time imports
 * (src/api, src/client, src/noise). Every time rule (API budgets, retries and their Retry-After
 * waits, stream silences, attempt limits, backoff, heartbeat, warmup deferral, graceful end, the
 * rnnoise load) reads a `Clock`, so tests drive them on fake time (test/client/clock-only.test.ts
 * fails on any other timer or time read in those folders).
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

/** Resolves after `ms` of `clock` time; with `signal`, rejects with its reason once it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
  return new Promise<void>((resolve, reject) => {
    signal.throwIfAborted();
    const stop = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
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
