/** What a {@link ReconnectPolicy} is told before each try of a recovery. */
export interface ReconnectContext {
  /** Tries of this recovery that failed so far (0 before the first). */
  readonly retryCount: number;
  /** Milliseconds since the call dropped. */
  readonly elapsedMs: number;
  /** Why the last try failed (undefined before the first). */
  readonly retryReason?: unknown;
}

/**
 * When a dropped call tries again (LiveKit's interface). Asked before each try of a recovery: the
 * delay before it, or null to give up. The session also gives up once `reconnectTimeoutMs` is
 * spent, whatever the policy says, and shortens a delay so the last try still has time to connect.
 */
export interface ReconnectPolicy {
  nextRetryDelayMs(context: ReconnectContext): number | null;
}

/** Options of {@link jitteredBackoff}. */
export interface JitteredBackoffOptions {
  /** The first try waits a random 0..`firstJitterMs` (default 50). */
  firstJitterMs?: number;
  /** Base of the exponential delay of later tries (default 250 ms: 250, 500, 1000, ...). */
  baseMs?: number;
  /** Largest base delay (default 2000 ms). */
  maxMs?: number;
  /** Random source in [0, 1) (default Math.random; tests pass a fixed one). */
  random?: () => number;
}

/**
 * The default policy: the first try almost at once (a random 0–50 ms, so clients that lost the
 * same service do not all arrive in the same millisecond), then 250 ms doubling up to 2 s, each
 * scaled by a random factor of 0.5–1.5 so that after a service restart retries spread out instead
 * of arriving in lockstep. It never gives up by itself: `reconnectTimeoutMs` bounds the recovery.
 */
export function jitteredBackoff(options: JitteredBackoffOptions = {}): ReconnectPolicy {
  const { firstJitterMs = 50, baseMs = 250, maxMs = 2000, random = Math.random } = options;
  return {
    nextRetryDelayMs({ retryCount }) {
      if (retryCount === 0) return random() * firstJitterMs;
      return Math.round(Math.min(maxMs, baseMs * 2 ** (retryCount - 1)) * (0.5 + random()));
    },
  };
}
