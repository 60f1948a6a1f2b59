/**
 * The one retry rule of the library, for the API client's own retries (attempts.ts) and the
 * session's (reconnection, trickle: client/retry.ts, client/errors.ts `classifyFailure`).
 *
 * A failure is worth repeating when nothing answered (network error, timeout: no status) or its
 * status is in {@link TRANSIENT}; any other status is a refusal (gone, not allowed, malformed, not
 * implemented) that repeating cannot help. A 429 or 503 may say when to come back (`Retry-After`):
 * the next try waits that long when it is at most `maxRetryAfter` and leaves time to try;
 * otherwise the tries end at once, and the caller gets the failure with its `retryAfterMs`.
 */

/**
 * HTTP statuses that may pass later. `retryAfter`: the answer may say when (Retry-After is read
 * only on these). `repeatsWait`: a gateway timeout — a gateway (the relay) already waited its whole
 * limit for the upstream, so the API client does not repeat it inside one call (9.9 s for a 3 s
 * relay limit, for an answer most likely as late); a caller with its own budget (reconnection) may.
 */
export const TRANSIENT: ReadonlyMap<number, { retryAfter: boolean; repeatsWait: boolean }> = new Map([
  [408, { retryAfter: false, repeatsWait: false }],
  [429, { retryAfter: true, repeatsWait: false }],
  [500, { retryAfter: false, repeatsWait: false }],
  [502, { retryAfter: false, repeatsWait: false }],
  [503, { retryAfter: true, repeatsWait: false }],
  [504, { retryAfter: false, repeatsWait: true }],
]);

/** Default longest `Retry-After` (ms) waited out before trying again (the API client's `maxRetryAfter`, the session's too). */
export const MAX_RETRY_AFTER_MS = 5_000;

/** Whether a failure with `status` (undefined: nothing answered) may pass if asked again. */
export function isTransient(status: number | undefined): boolean {
  return status === undefined || TRANSIENT.has(status);
}

/** Whether an answer with `status` may carry a `Retry-After` worth reading. */
export function saysWhen(status: number): boolean {
  return TRANSIENT.get(status)?.retryAfter === true;
}

/**
 * How long to wait before the next try when the service said `retryAfterMs` (undefined: it did not
 * say, `fallbackMs` is used): the Retry-After itself, or null — stop trying — when it is longer
 * than `maxRetryAfter` or than `remainingMs`, the time left to try in.
 */
export function retryWait(retryAfterMs: number | undefined, fallbackMs: number, maxRetryAfter: number, remainingMs: number): number | null {
  if (retryAfterMs === undefined) return fallbackMs;
  return retryAfterMs <= maxRetryAfter && retryAfterMs < remainingMs ? Math.max(retryAfterMs, fallbackMs) : null;
}
