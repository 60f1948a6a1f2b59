import { MAX_RETRY_AFTER_MS, retryWait } from '../api/retryable.js';
import { classifyFailure } from './errors.js';
import type { Clock } from '../clock.js';
import type { ReconnectPolicy } from './reconnect-policy.js';

/** Options of a {@link RetrySchedule}. */
export interface RetryScheduleOptions {
  clock: Clock;
  /** The pause before each try, or null to stop (its `retryReason` is the failure kept as the cause). */
  policy: ReconnectPolicy;
  /** Clock time the budget runs from (default: when the schedule is made). */
  began?: number;
  /** Time for every try together, pauses included (ms; default unbounded). */
  budgetMs?: number;
  /** A try with less time than this left is not started: it could only time out and hide the real failure (default 0). */
  minTryMs?: number;
  /**
   * Longest `Retry-After` (ms) of a failure (a 429 or 503's `retryAfterMs`) the next try waits for
   * (default {@link MAX_RETRY_AFTER_MS}, as the API client); a longer one, or one past the budget,
   * ends the tries (the library's one retry rule, api/retryable.ts).
   */
  maxRetryAfter?: number;
  /** Whether a failure ends the tries; default: the service refused (not {@link classifyFailure}'s `retryable`). */
  isFinal?(error: unknown): boolean;
  /** Whether failure `next` says more than `kept`, the cause so far (default: the latest failure is kept). */
  moreInformative?(next: unknown, kept: unknown): boolean;
}

/**
 * The one bounded retry of the client (the call's recovery, the trickle's PATCHes): how many
 * tries, how long to pause before each (a {@link ReconnectPolicy}, never sooner than a failure's
 * `Retry-After` allows), the time budget they share,
 * which failure ends them and which is kept as the cause. It never sleeps itself: the caller waits
 * the pause it returns on its own Clock, between its own steps (so a recovery can report each try).
 *
 * @example
 * const schedule = new RetrySchedule({ clock, policy: fixedPauses(200, 3) });
 * for (let pause = schedule.next(); pause !== null; pause = schedule.next()) {
 *   if (pause > 0) await sleep(clock, pause);
 *   try { return await send(); } catch (err) { if (!schedule.failed(err)) break; }
 * }
 */
export class RetrySchedule {
  private readonly began: number;
  private failures = 0;
  private kept: unknown;
  /** The latest failure's `Retry-After` (ms), when it said one. */
  private retryAfterMs: number | undefined;

  constructor(private readonly options: RetryScheduleOptions) {
    this.began = options.began ?? options.clock.now();
  }

  /**
   * The pause (ms) before the next try, shortened so the try still gets `minTryMs` of the budget;
   * null when no try is left: the policy said stop, or the budget is spent (a try made at the
   * budget's last moment, its pause shortened to it, is the last one).
   */
  next(): number | null {
    const { clock, policy, budgetMs = Number.POSITIVE_INFINITY, minTryMs = 0 } = this.options;
    const spare = this.began + budgetMs - clock.now() - minTryMs;
    if (spare < 0 || (this.failures > 0 && spare === 0)) return null;
    const delay = policy.nextRetryDelayMs({ retryCount: this.failures, elapsedMs: clock.now() - this.began, ...(this.kept !== undefined ? { retryReason: this.kept } : {}) });
    if (delay === null) return null;
    // The service said when to come back: not sooner, and not at all when that is too far off.
    const pause = retryWait(this.retryAfterMs, delay, this.options.maxRetryAfter ?? MAX_RETRY_AFTER_MS, spare);
    return pause === null ? null : Math.max(0, Math.min(pause, spare));
  }

  /** Budget left (ms) for the try about to be made. */
  remainingMs(): number {
    const { clock, budgetMs = Number.POSITIVE_INFINITY } = this.options;
    return this.began + budgetMs - clock.now();
  }

  /** A try failed with `error`: it counts, and may become the cause. Returns whether another try may help. */
  failed(error: unknown): boolean {
    this.failures++;
    if (this.kept === undefined || (this.options.moreInformative?.(error, this.kept) ?? true)) this.kept = error;
    const { retryable, retryAfterMs } = classifyFailure(error);
    this.retryAfterMs = retryAfterMs;
    return !(this.options.isFinal ? this.options.isFinal(error) : !retryable);
  }

  /** The failure kept as the cause (undefined before the first). */
  get cause(): unknown {
    return this.kept;
  }
}

/** A {@link ReconnectPolicy} of at most `tries` tries: the first at once, the others `pauseMs` apart. */
export function fixedPauses(pauseMs: number, tries: number): ReconnectPolicy {
  return { nextRetryDelayMs: ({ retryCount }) => (retryCount >= tries ? null : retryCount === 0 ? 0 : pauseMs) };
}
