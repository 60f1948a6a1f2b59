import type { Clock } from '../clock.js';

/** A signal that aborts with either (AbortSignal.any where the platform has it: Firefox < 124, Safari < 17.4 do not). */
function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const both = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) both.abort(signal.reason);
    else signal.addEventListener('abort', () => both.abort(signal.reason), { once: true });
  }
  return both.signal;
}

/**
 * The time budget of one API call: one signal that aborts when the caller aborts or when `timeoutMs`
 * has passed since the call began, whatever the call is doing then (sending, waiting out a retry,
 * reading the body).
 */
export class Deadline {
  readonly signal: AbortSignal;
  readonly #expiry = new AbortController();
  readonly #caller: AbortSignal | undefined;
  readonly #endsAt: number;
  #timer: unknown;

  constructor(readonly timeoutMs: number, caller: AbortSignal | undefined, private readonly clock: Clock) {
    this.#caller = caller;
    this.#endsAt = clock.now() + timeoutMs;
    this.#timer = clock.setTimeout(() => this.#expiry.abort(new DOMException(`The call took longer than ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    this.signal = caller ? either(caller, this.#expiry.signal) : this.#expiry.signal;
  }

  /** True once the budget ran out (not when the caller aborted). */
  get expired(): boolean {
    return this.#expiry.signal.aborted;
  }

  /** True once the caller aborted (before the budget ran out). */
  get cancelled(): boolean {
    return !this.expired && this.#caller?.aborted === true;
  }

  /** Milliseconds left (0 when spent). */
  remaining(): number {
    return Math.max(0, this.#endsAt - this.clock.now());
  }

  /** The call is over: the timer goes. Idempotent. */
  clear(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
