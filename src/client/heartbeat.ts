import type { Clock } from './clock.js';

/** Options of {@link Heartbeat}. */
export interface HeartbeatOptions {
  clock: Clock;
  intervalMs: number;
  /** Pings in a row with nothing heard back after which the link counts as dead (default 4). */
  maxMissed?: number;
  /** Sends one ping carrying `t`; may throw when the channel is gone (counts as a miss). */
  send: (t: number) => void;
  /** Called once when the link is considered dead; the heartbeat stops itself. */
  onDead: () => void;
}

/**
 * Pings over the data channel every `intervalMs` and declares the link dead after `maxMissed`
 * pings in a row with nothing heard back (a pong, or any other message: a busy service whose pongs
 * queue behind a stream of transcripts is alive). ICE state alone can keep saying "connected" for
 * seconds after the path died; with the session's defaults (250 ms, 4) a dead path is noticed
 * 1.0-1.25 s after the last thing heard.
 */
export class Heartbeat {
  private timer: unknown;
  private missed = 0;
  private lastTick = 0;
  private readonly maxMissed: number;

  constructor(private readonly options: HeartbeatOptions) {
    this.maxMissed = options.maxMissed ?? 4;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    this.stop();
    this.missed = 0;
    if (!(this.options.intervalMs > 0)) return; // 0 turns the heartbeat off (kb-voice/testing)
    this.lastTick = this.options.clock.now();
    this.schedule();
  }

  stop(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A pong (or any message) arrived: the link is alive. */
  alive(): void {
    this.missed = 0;
  }

  private schedule(): void {
    this.timer = this.options.clock.setTimeout(() => this.tick(), this.options.intervalMs);
  }

  private tick(): void {
    this.timer = undefined;
    const now = this.options.clock.now();
    // This side's own event loop stood still (a busy tab, a loaded machine): answers could not be
    // read meanwhile, so the pings of that stretch say nothing about the path.
    if (now - this.lastTick > 2 * this.options.intervalMs) this.missed = 0;
    this.lastTick = now;
    if (this.missed >= this.maxMissed) {
      this.stop();
      this.options.onDead();
      return;
    }
    this.missed++;
    this.schedule();
    try {
      this.options.send(now);
    } catch {
      // A send that throws is just another ping without pong.
    }
  }
}
