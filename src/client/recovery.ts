import { isTimeout } from './attempt.js';
import { sleep, type Clock } from '../clock.js';
import { VoiceSessionError } from './errors.js';
import type { Command } from './realtime-protocol.js';
import type { ReconnectPolicy } from './reconnect-policy.js';
import { RetrySchedule } from './retry.js';
import type { ReconnectHow } from './state.js';
import { Waiters } from './waiters.js';
import { SCTP_RTO_MS } from './heartbeat.js';

/** How long the link may take to carry a ping and its pong after an ICE restart before a new offer is made, at least... */
const RESTART_PROBE_MS = 3000;
/**
 * ...and at most, after a long silence. The data channel is ordered: the probe's ping waits behind
 * what SCTP is still retransmitting, on a timer that doubled through the silence, so its pong can
 * take about as long as the link was silent, plus one retransmission timeout (SCTP_RTO_MS). A busy
 * core that noticed the dead path late measured 1-2 s probes, and past 3 s the restarted link was
 * thrown away for a new offer (2026-12-07).
 */
const RESTART_PROBE_MAX_MS = 10_000;

/** A try with less time than this left is not started: it could only time out and hide the real failure. */
export const MIN_ATTEMPT_MS = 500;

/** What {@link Recovery} may do with the link that dropped (an Attempt): restart it, probe it, close it. */
export interface DroppedLink {
  /** An ICE restart on the same connection; undefined when the transport cannot. */
  restart(): Promise<void> | undefined;
  /** Sends a command (the probe's ping). */
  send(command: Command): number;
  abort(): void;
}

/** What {@link Recovery} reports. */
export interface RecoveryReport {
  /** A try begins (`attempt` counts this recovery's tries from 1). */
  trying(how: ReconnectHow, attempt: number): void;
  /** The call goes on over `attempt` (the same one after an ICE restart, a new one after a new offer). */
  restored(link: DroppedLink): void;
  /** Nothing restored the call in time, or the service refused it: the call is over (`connection_lost`). */
  gaveUp(error: VoiceSessionError): void;
}

/** What {@link Recovery} asks of the session: a new attempt continuing `sessionId`, run within `timeoutMs`. */
export interface AttemptRequest {
  sessionId: string;
  timeoutMs: number;
}

/** The session's answer to an {@link AttemptRequest}: the attempt that connected, or why none did. */
export type AttemptOutcome = { attempt: DroppedLink } | { error: unknown };

/** What {@link Recovery} uses. */
export interface RecoveryOptions {
  clock: Clock;
  policy: ReconnectPolicy;
  /** Longest Retry-After a try waits for (VoiceSessionOptions.maxRetryAfter). */
  maxRetryAfter?: number;
  reconnectTimeoutMs: number;
  connectTimeoutMs: number;
  /** The protocol has ping/pong: a restarted link is trusted only once a ping came back. */
  probes: boolean;
  /** Whether the browser is offline: no try is made meanwhile; the first one starts once {@link Recovery.networkChanged} says it may be back. */
  network: { readonly offline: boolean };
  /** When the service was last heard (clock time; the heartbeat's): how long a restart's probe may take. */
  lastHeard(): number;
}

/**
 * Restores a dropped call: first an ICE restart on the same connection (when the transport can),
 * then new offers for the same session, spaced by the {@link ReconnectPolicy} (a
 * {@link RetrySchedule}), until one connects or `reconnectTimeoutMs` is spent. An effect: it
 * reports, the session decides. It opens nothing itself: {@link run} yields each new attempt it
 * needs as an {@link AttemptRequest}, the session opens it (making it the current attempt) and
 * passes the {@link AttemptOutcome} back.
 */
export class Recovery {
  private restartedAt = Number.NEGATIVE_INFINITY;
  private readonly pongs: Waiters;
  private readonly online: Waiters;

  constructor(private readonly options: RecoveryOptions, private readonly report: RecoveryReport) {
    this.pongs = new Waiters(options.clock);
    this.online = new Waiters(options.clock);
  }

  /** A pong arrived. */
  pong(): void {
    this.pongs.wake();
  }

  /** The network changed (it may be back online): a recovery waiting for it looks again. */
  networkChanged(): void {
    this.online.wake();
  }

  /**
   * Recovers the call `sessionId` that `dropped` carried; stops silently once `signal` aborts
   * (end()). Yields a request for each new offer; the session answers with its outcome.
   */
  async *run(sessionId: string, dropped: DroppedLink, signal: AbortSignal): AsyncGenerator<AttemptRequest, void, AttemptOutcome> {
    const { clock, reconnectTimeoutMs, network } = this.options;
    const began = clock.now();
    const until = began + reconnectTimeoutMs;
    let tries = 0;
    const offline = network.offline;
    if (offline) {
      // The state says at once that the call is being restored; the restart waits for the network.
      this.report.trying('ice-restart', ++tries);
      if (!(await this.networkBack(until, signal))) return this.gaveUpOffline(signal);
      if (signal.aborted) return;
    }
    // A link that dies again soon after a restart (the far side, not the path, is the problem) gets new offers.
    const restart = began - this.restartedAt > reconnectTimeoutMs ? dropped.restart() : undefined;
    if (restart) {
      this.restartedAt = began;
      if (!offline) this.report.trying('ice-restart', ++tries);
      const ok = await restart.then(() => this.probe(dropped), () => false);
      if (signal.aborted) return;
      if (ok) return this.report.restored(dropped);
    }
    dropped.abort();
    // Keep the most informative failure as the cause: a timeout only when nothing else happened.
    const { maxRetryAfter } = this.options;
    const schedule = new RetrySchedule({ clock, policy: this.options.policy, ...(maxRetryAfter !== undefined ? { maxRetryAfter } : {}), began, budgetMs: reconnectTimeoutMs, minTryMs: MIN_ATTEMPT_MS, moreInformative: (next, kept) => !isTimeout(next) || isTimeout(kept) });
    for (let pause = schedule.next(); pause !== null && !signal.aborted; pause = schedule.next()) {
      // Reported before the pause: the state says at once that the call is being restored.
      this.report.trying('new-offer', ++tries);
      if (pause > 0) await sleep(clock, pause);
      if (signal.aborted) return;
      if (network.offline && !(await this.networkBack(until, signal))) return this.gaveUpOffline(signal);
      const outcome = yield { sessionId, timeoutMs: Math.min(schedule.remainingMs(), this.options.connectTimeoutMs) };
      if ('attempt' in outcome) {
        if (!signal.aborted) this.report.restored(outcome.attempt);
        return;
      }
      // A refusal (deleted, logged out: a 4xx) ends the tries: repeating it cannot help.
      if (!schedule.failed(outcome.error)) break;
    }
    if (signal.aborted) return;
    this.report.gaveUp(new VoiceSessionError('connection_lost', `The connection was lost and not restored within ${reconnectTimeoutMs} ms`, { cause: schedule.cause }));
  }

  /** Waits until the network is back or `until` (clock time); false when it stayed offline. An abort ends the wait. */
  private async networkBack(until: number, signal: AbortSignal): Promise<boolean> {
    const wake = () => this.online.wake();
    signal.addEventListener('abort', wake, { once: true });
    try {
      while (this.options.network.offline && !signal.aborted) {
        if (!(await this.online.wait(Math.max(0, until - this.options.clock.now())))) return false;
      }
      return true;
    } finally {
      signal.removeEventListener('abort', wake);
    }
  }

  private gaveUpOffline(signal: AbortSignal): void {
    if (signal.aborted) return;
    this.report.gaveUp(new VoiceSessionError('connection_lost', `The device stayed offline for more than ${this.options.reconnectTimeoutMs} ms`));
  }

  /**
   * Whether a ping sent now is answered in time (the link carries messages again). A protocol
   * without ping/pong has nothing to probe with: ICE connected again is taken as restored.
   */
  private probe(link: DroppedLink): Promise<boolean> {
    if (!this.options.probes) return Promise.resolve(true);
    const t = this.options.clock.now();
    const limit = Math.min(RESTART_PROBE_MAX_MS, Math.max(RESTART_PROBE_MS, t - this.options.lastHeard() + SCTP_RTO_MS));
    return this.pongs.wait(limit, () => link.send({ type: 'ping', t }));
  }
}
