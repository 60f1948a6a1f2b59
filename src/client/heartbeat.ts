import type { Clock } from './clock.js';

/** Options of {@link Heartbeat}. */
export interface HeartbeatOptions {
  clock: Clock;
  intervalMs: number;
  /** Unanswered pings after which the link counts as dead, if they also span `maxMissed` intervals (default 3). */
  maxMissed?: number;
  /** Sends one ping carrying `t`; may throw when the channel is gone (counts as a ping without pong). */
  send: (t: number) => void;
  /** Called once when the link is considered dead; the heartbeat stops itself. */
  onDead: () => void;
}

/**
 * Pings over the data channel every `intervalMs` and declares the link dead when nothing came
 * back — no pong, no other message — for `maxMissed` pings spanning at least `maxMissed`
 * intervals of elapsed time. ICE state alone can keep saying "connected" for a long time after the
 * far side vanished; this catches it within a few intervals.
 *
 * Both conditions matter in background tabs: Chrome runs a hidden tab's timers once a second, and
 * after 5 minutes once a minute (intensive throttling), and a frozen tab runs none, so a tick can
 * come long after the previous one. Elapsed time alone would then call a healthy link dead (the
 * pong of the last ping may still wait in the queue behind this tick); a count of ticks alone
 * would wait 3 minutes, or forever. With both, a throttled link stays up (each ping's pong comes
 * back before the next tick), a thawed page sends a fresh ping before judging, and a dead link in
 * a throttled tab is declared dead after `maxMissed` pings — ICE consent checks (about 30 s)
 * usually notice a dead path first.
 */
export class Heartbeat {
  private timer: unknown;
  /** When the first ping that is still unanswered was sent (undefined: everything sent was answered). */
  private unansweredSince: number | undefined;
  private unanswered = 0;
  private readonly maxMissed: number;

  constructor(private readonly options: HeartbeatOptions) {
    this.maxMissed = options.maxMissed ?? 3;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    this.stop();
    this.heard();
    if (!(this.options.intervalMs > 0)) return; // 0 turns the heartbeat off (kb-voice/testing)
    this.schedule();
  }

  stop(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Something arrived from the service (a pong or any other message): the link is alive. */
  heard(): void {
    this.unansweredSince = undefined;
    this.unanswered = 0;
  }

  /** A pong arrived. */
  pong(): void {
    this.heard();
  }

  private schedule(): void {
    this.timer = this.options.clock.setTimeout(() => this.tick(), this.options.intervalMs);
  }

  private tick(): void {
    this.timer = undefined;
    const now = this.options.clock.now();
    const silentFor = this.unansweredSince === undefined ? 0 : now - this.unansweredSince;
    if (this.unanswered >= this.maxMissed && silentFor >= this.maxMissed * this.options.intervalMs) {
      this.options.onDead();
      return;
    }
    this.unansweredSince ??= now;
    this.unanswered++;
    this.schedule();
    try {
      this.options.send(now);
    } catch {
      // A send that throws is just another ping without pong.
    }
  }
}
