import type { SessionEffect } from './effects.js';
import type { Clock } from '../clock.js';

/** Options of {@link Heartbeat}. */
export interface HeartbeatOptions {
  clock: Clock;
  intervalMs: number;
  /**
   * Pings in a row with nothing heard back after which the link counts as dead, provided they also
   * span `maxMissed` intervals of elapsed time (default 4).
   */
  maxMissed?: number;
  /** Sends one ping carrying `t`; may throw when the channel is gone (counts as a miss). */
  send: (t: number) => void;
  /** Called once when the link is considered dead; the heartbeat stops itself. */
  onDead: () => void;
  /**
   * Bytes received so far on the connection's path (the selected candidate pair's `bytesReceived`),
   * null when unknown; undefined while there is no connection. Asked once a ping interval passed
   * with nothing heard and again when the silence would count as dead: a count that grew means the service's packets still
   * arrive (RTCP, audio), so the service is slow, not gone, and the silence may last up to
   * {@link SERVICE_SILENCE_MAX_MS}. Without it, silence alone decides.
   */
  pathBytes?: () => Promise<number | null> | undefined;
}

/**
 * Pings over the data channel every `intervalMs` and declares the link dead after `maxMissed`
 * pings in a row with nothing heard back (a pong, or any other message: a busy service whose pongs
 * queue behind a stream of transcripts is alive) that also span `maxMissed` intervals of elapsed
 * time. ICE state alone can keep saying "connected" for seconds after the path died; with the
 * session's defaults (250 ms, 4) a dead path is noticed 1.0-1.25 s after the last thing heard.
 *
 * Both conditions matter in background tabs: Chrome runs a hidden tab's timers at most once a
 * second, after 5 minutes once a minute (intensive throttling), and a frozen tab's not at all, so
 * a tick can come long after the one before. Elapsed time alone would call a healthy link dead at
 * the first tick after a freeze (the pong of the last ping may still wait in the queue behind that
 * tick); with the count too, a thawed page sends fresh pings before it judges, and a throttled
 * link stays up because each ping's pong comes back before the next tick. A tick more than two
 * intervals after the one before starts the count again (the answers of the pings before it could
 * not be read meanwhile), so while every tick is that late (a throttled tab, an event loop held
 * for long stretches) the heartbeat makes no verdict: ICE's consent checks (about 30 s) judge
 * such a link, and a short outage then passes without a reconnection.
 *
 * Slow paths get the time their round trips need: pongs echo their ping's `t`, and the path's
 * round trip (the least of the last {@link RTT_SAMPLES} measured: a stall only ever lengthens a
 * sample, it never shortens one) sets a floor on the silence that counts as dead:
 * `RTT_ALLOWANCE` round trips plus one SCTP retransmission timeout ({@link SCTP_RTO_MS}). On a
 * 650 ms path with loss (poor 3G, satellite) one lost data-channel message holds every later one
 * until SCTP retransmits it, so answers can stall for about two seconds on a live path; a fixed
 * 1 s allowance took such calls for dead again and again. On loopback or a LAN the floor stays
 * at or under `maxMissed` intervals, which then decide (1.0-1.25 s with the defaults). Until the
 * first pong of a connection has measured its path, the floor is {@link UNMEASURED_FLOOR_MS}.
 */
/** Round trips of silence a path gets at least, on top of {@link SCTP_RTO_MS}. */
export const RTT_ALLOWANCE = 6;
/** One retransmission timeout of the data channel's SCTP (RFC 4960's RTO.Min). */
export const SCTP_RTO_MS = 1000;
/** Round-trip samples the path's round trip is the least of. */
export const RTT_SAMPLES = 16;
/**
 * The least silence that counts as dead before this connection's first pong measured its path: a
 * fresh data channel on a slow, lossy path can take seconds to answer the first pings.
 */
export const UNMEASURED_FLOOR_MS = 4000;
/**
 * The longest silence on the data channel that a path still carrying the service's packets is
 * given (ms). A service whose event loop stalls (a GC, a loaded host) stops answering pings while
 * its media stack (RTCP, congestion feedback) goes on; reconnecting then costs the turn in
 * progress and adds load where there is already too much. Silence beyond this is a dead link
 * whatever the path does.
 */
export const SERVICE_SILENCE_MAX_MS = 10_000;
/**
 * The path counts as alive while it received bytes within this long (ms): a stalled service's media
 * stack sends RTCP (congestion feedback) at least every few hundred ms while the caller's audio,
 * even Opus DTX's 400 ms frames, reaches it.
 */
export const PATH_WINDOW_MS = 1000;

export class Heartbeat implements SessionEffect {
  private timer: unknown;
  /** The last round trips measured from pongs (ms), oldest first, ... */
  private readonly rtts: number[] = [];
  /** ...and with each, the service's clock minus ours (NaN: the pong did not carry the service's time). */
  private readonly offsets: number[] = [];
  /** When something was last heard. */
  private lastHeard = 0;
  private missed = 0;
  /** When the first of the pings still without reply was sent. */
  private missedSince = 0;
  private lastTick = 0;
  private readonly maxMissed: number;
  /** The path's byte counts read during the current silence (one per ping interval), oldest first. */
  private readings: Array<{ at: number; bytes: number }> = [];

  constructor(private readonly options: HeartbeatOptions) {
    this.maxMissed = options.maxMissed ?? 4;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  connected(): void {
    this.start();
  }

  lost(): void {
    this.stop();
  }

  close(): void {
    this.stop();
  }

  start(): void {
    this.stop();
    this.missed = 0;
    this.rtts.length = this.offsets.length = 0; // a new attempt may take another path (and service clock)
    if (!(this.options.intervalMs > 0)) return; // 0 turns the heartbeat off (kb-voice/testing)
    this.lastTick = this.options.clock.now();
    this.lastHeard = this.lastTick; // started once connected: the service was just heard
    this.schedule();
  }

  stop(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * A pong (or any message) arrived: the link is alive. A pong passes its ping's `t` (the clock's
   * time the ping was sent), which measures the path's round trip, and may pass the service's
   * clock when it answered (`pong.at_ms`): sent about half a round trip before it arrived, it
   * gives the offset between the two clocks (NTP's way; `Turn.timing` maps service times with it).
   */
  alive(echoed?: number, serviceAt?: number): void {
    this.missed = 0;
    this.lastHeard = this.options.clock.now();
    if (echoed === undefined) return;
    const rtt = this.lastHeard - echoed;
    if (!(rtt >= 0) || !Number.isFinite(rtt)) return; // not one of our pings (or another clock)
    this.rtts.push(rtt);
    this.offsets.push(typeof serviceAt === 'number' ? serviceAt - echoed - rtt / 2 : NaN);
    if (this.rtts.length > RTT_SAMPLES) this.rtts.shift(), this.offsets.shift();
  }

  /** When the service was last heard (clock time): a pong, any message, or the connection. */
  get heardAt(): number {
    return this.lastHeard;
  }

  /** The path's round trip: the least of the recent ones (ms); null before the first pong. */
  get rttMs(): number | null {
    return this.rtts.length ? Math.min(...this.rtts) : null;
  }

  /**
   * The service's clock minus this one (ms), from the recent pong with the shortest round trip that
   * carried the service's time (queueing only lengthens a round trip, and the error is at most half
   * of it); null when none did (an OpenAI-dialect server, an older service).
   */
  get offsetMs(): number | null {
    let best = -1;
    this.offsets.forEach((o, i) => {
      if (!Number.isNaN(o) && (best < 0 || this.rtts[i]! < this.rtts[best]!)) best = i;
    });
    return best < 0 ? null : this.offsets[best]!;
  }

  /** The least silence since something was last heard that can mean a dead path (ms). */
  private silenceFloorMs(): number {
    return this.rtts.length === 0 ? UNMEASURED_FLOOR_MS : RTT_ALLOWANCE * Math.min(...this.rtts) + SCTP_RTO_MS;
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
    const silentMs = now - this.lastHeard;
    if (
      this.missed >= this.maxMissed &&
      now - this.missedSince >= this.maxMissed * this.options.intervalMs &&
      silentMs >= this.silenceFloorMs()
    ) {
      // Dead, unless the path still receives the service's packets (up to SERVICE_SILENCE_MAX_MS).
      if (!(silentMs < SERVICE_SILENCE_MAX_MS && this.pathAlive(now))) return this.dead();
    }
    // Once a whole interval passed without a word, the path is read every tick (never while pongs
    // keep coming: a stats report costs the browser some work); a silence has readings of its own.
    const readings = this.missed > 0 ? this.readings : undefined;
    if (!readings) {
      this.missedSince = now;
      this.readings = [];
    }
    this.missed++;
    this.schedule();
    try {
      readings && this.options.pathBytes?.()?.then((bytes) => readings.push({ at: now, bytes: bytes ?? NaN }) > 16 && readings.shift(), () => undefined);
      this.options.send(now);
    } catch {
      // A send that throws is just another ping without pong.
    }
  }

  private dead(): void {
    this.stop();
    this.options.onDead();
  }

  /**
   * Whether the path received bytes lately: its latest reading (at most {@link PATH_WINDOW_MS} old)
   * above the one {@link PATH_WINDOW_MS} before it (or the silence's first). A path that went dark
   * shows no growth one window after its last packet (queued ones included); a stalled service's
   * path shows its RTCP.
   */
  private pathAlive(now: number): boolean {
    const r = this.readings;
    const latest = r.at(-1);
    if (!latest || now - latest.at > PATH_WINDOW_MS) return false;
    let base = 0;
    while (base + 1 < r.length && r[base + 1]!.at <= latest.at - PATH_WINDOW_MS) base++;
    return latest.bytes > r[base]!.bytes;
  }
}
