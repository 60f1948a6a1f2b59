import { PROTOCOL_VERSION } from '../schemas/realtime-events.js';
import { isTimeout, type Attempt } from './attempt.js';
import { sleep, type Clock } from './clock.js';
import { VoiceSessionError } from './errors.js';
import type { ReconnectPolicy } from './reconnect-policy.js';
import type { ReconnectHow } from './state.js';
import { Waiters } from './waiters.js';

/** How long the link may take to carry a ping and its pong after an ICE restart before a new offer is made. */
const RESTART_PROBE_MS = 3000;

/** A try with less time than this left is not started: it could only time out and hide the real failure. */
export const MIN_ATTEMPT_MS = 500;

/** What {@link Recovery} reports. */
export interface RecoveryReport {
  /** A try begins (`attempt` counts this recovery's tries from 1). */
  trying(how: ReconnectHow, attempt: number): void;
  /** The call goes on over `attempt` (the same one after an ICE restart, a new one after a new offer). */
  restored(attempt: Attempt): void;
  /** Nothing restored the call in time, or the service refused it: the call is over (`connection_lost`). */
  gaveUp(error: VoiceSessionError): void;
}

/** What {@link Recovery} uses. */
export interface RecoveryOptions {
  clock: Clock;
  policy: ReconnectPolicy;
  reconnectTimeoutMs: number;
  connectTimeoutMs: number;
  /** The protocol has ping/pong: a restarted link is trusted only once a ping came back. */
  probes: boolean;
  /** Makes a new attempt for `sessionId` (it becomes the session's current one) and runs it within `timeoutMs`. */
  open(sessionId: string, timeoutMs: number): Promise<Attempt>;
}

/** The service refused to continue the session (e.g. 404/409: deleted, 401: logged out): retrying cannot help. */
function refused(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Restores a dropped call: first an ICE restart on the same connection (when the transport can),
 * then new offers for the same session, spaced by the {@link ReconnectPolicy}, until one connects
 * or `reconnectTimeoutMs` is spent. An effect: it reports, the session decides.
 */
export class Recovery {
  private restartedAt = Number.NEGATIVE_INFINITY;
  private readonly pongs: Waiters;

  constructor(private readonly options: RecoveryOptions, private readonly report: RecoveryReport) {
    this.pongs = new Waiters(options.clock);
  }

  /** A pong arrived. */
  pong(): void {
    this.pongs.wake();
  }

  /** Recovers the call `sessionId` that `dropped` carried; stops silently once `signal` aborts (end()). */
  async run(sessionId: string, dropped: Attempt, signal: AbortSignal): Promise<void> {
    const { clock, reconnectTimeoutMs } = this.options;
    const began = clock.now();
    let tries = 0;
    // A link that dies again soon after a restart (the far side, not the path, is the problem) gets new offers.
    const restart = began - this.restartedAt > reconnectTimeoutMs ? dropped.transport.restart?.() : undefined;
    if (restart) {
      this.restartedAt = began;
      this.report.trying('ice-restart', ++tries);
      const ok = await restart.then(() => this.probe(dropped), () => false);
      if (signal.aborted) return;
      if (ok) return this.report.restored(dropped);
    }
    dropped.abort();
    let cause: unknown;
    for (let failed = 0; !signal.aborted; failed++) {
      // Time to spare before the last moment a try still gets MIN_ATTEMPT_MS; a try made at that
      // moment (its pause shortened to it) is the last one.
      const spare = began + reconnectTimeoutMs - clock.now() - MIN_ATTEMPT_MS;
      if (spare < 0 || (failed > 0 && spare === 0)) break;
      const delay = this.options.policy.nextRetryDelayMs({ retryCount: failed, elapsedMs: clock.now() - began, ...(cause !== undefined ? { retryReason: cause } : {}) });
      if (delay === null) break;
      // Reported before the pause: the state says at once that the call is being restored.
      this.report.trying('new-offer', ++tries);
      if (delay > 0) await sleep(clock, Math.min(delay, spare));
      if (signal.aborted) return;
      try {
        const attempt = await this.options.open(sessionId, Math.min(began + reconnectTimeoutMs - clock.now(), this.options.connectTimeoutMs));
        if (!signal.aborted) this.report.restored(attempt);
        return;
      } catch (err) {
        // Keep the most informative failure: a timeout only when nothing else happened.
        if (cause === undefined || !isTimeout(err) || isTimeout(cause)) cause = err;
        if (refused(err)) break;
      }
    }
    if (signal.aborted) return;
    this.report.gaveUp(new VoiceSessionError('connection_lost', `The connection was lost and not restored within ${reconnectTimeoutMs} ms`, { cause }));
  }

  /**
   * Whether a ping sent now is answered in time (the link carries messages again). A protocol
   * without ping/pong has nothing to probe with: ICE connected again is taken as restored.
   */
  private probe(attempt: Attempt): Promise<boolean> {
    if (!this.options.probes) return Promise.resolve(true);
    return this.pongs.wait(RESTART_PROBE_MS, () => attempt.send({ v: PROTOCOL_VERSION, type: 'ping', t: this.options.clock.now() }));
  }
}
