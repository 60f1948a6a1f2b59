import { normal, type Random } from './random.js';

/**
 * What one direction of a path does to packets. Every field is optional: a missing one does
 * nothing. Limits are checked by {@link checkConditions}.
 */
export interface LinkConditions {
  /** One-way delay added to every packet (ms). */
  delayMs?: number;
  /** Standard deviation of the per-packet delay variation around `delayMs` (ms); packets stay in order unless `reorderPct` says otherwise. */
  jitterMs?: number;
  /** Share of packets lost (0–100). */
  lossPct?: number;
  /**
   * Mean length of a loss burst in packets: 1 (default) loses packets independently; above 1 the
   * losses follow a two-state Gilbert–Elliott chain with that mean burst and `lossPct` overall.
   */
  burstLength?: number;
  /** Share of packets (0–100) held back `reorderDelayMs` longer, so that the packets after them overtake them. */
  reorderPct?: number;
  /** Extra delay of a reordered packet (ms); default 40 (two Opus frames). */
  reorderDelayMs?: number;
  /** Bandwidth cap (kbit/s): packets are serialized at this rate and queue behind each other. */
  bandwidthKbps?: number;
  /** Longest queue behind the bandwidth cap (ms of sending); a packet that would wait longer is dropped (tail drop). Default 300. */
  queueMs?: number;
}

const DEFAULT_REORDER_DELAY_MS = 40;
const DEFAULT_QUEUE_MS = 300;

/** Throws a RangeError naming the first field out of its range. */
export function checkConditions(c: LinkConditions, where = 'conditions'): void {
  const check = (name: keyof LinkConditions, min: number, max: number) => {
    const v = c[name];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      throw new RangeError(`${where}.${name} must be a number in ${min}..${max}, got ${String(v)}`);
    }
  };
  check('delayMs', 0, 60_000);
  check('jitterMs', 0, 10_000);
  check('lossPct', 0, 100);
  check('burstLength', 1, 10_000);
  check('reorderPct', 0, 100);
  check('reorderDelayMs', 0, 10_000);
  check('bandwidthKbps', 1, 10_000_000);
  check('queueMs', 0, 60_000);
}

/** Counters of one direction. */
export interface LinkCounters {
  /** Packets offered to the link. */
  packets: number;
  /** Packets dropped: random or burst loss, a full queue, or an outage. */
  dropped: number;
  /** Of `dropped`, those lost to an outage. */
  outageDropped: number;
  /** Packets held back for the packets after them to overtake (`reorderPct`). */
  reordered: number;
  bytes: number;
}

/**
 * The fate of packets in one direction, decided on the caller's clock: when each packet arrives,
 * or that it is lost. No sockets and no timers, so tests drive it with made-up times and a seeded
 * {@link Random}.
 *
 * Gilbert–Elliott (simple Gilbert form: every packet in the bad state is lost, none in the good
 * state): with loss share L and mean burst B, the chain leaves the bad state with r = 1/B per
 * packet and enters it with p = L·r/(1−L), so the stationary loss is p/(p+r) = L and bursts are
 * geometric with mean 1/r = B (Gilbert 1960; Elliott 1963; the netem "gemodel" uses the same p, r).
 */
export class LinkImpairment {
  private c = LinkImpairment.resolve({});
  private given: LinkConditions = {};
  private bad = false;
  /** When the link finishes sending what is queued (bandwidth cap). */
  private busyUntil = 0;
  /** Latest arrival of an in-order packet: later in-order packets never arrive before it. */
  private orderFloor = 0;
  private outages: { from: number; until: number }[] = [];
  readonly counters: LinkCounters = { packets: 0, dropped: 0, outageDropped: 0, reordered: 0, bytes: 0 };

  constructor(conditions: LinkConditions, private readonly random: Random) {
    this.set(conditions);
  }

  private static resolve(c: LinkConditions) {
    return {
      delayMs: c.delayMs ?? 0,
      jitterMs: c.jitterMs ?? 0,
      lossPct: c.lossPct ?? 0,
      burstLength: c.burstLength ?? 1,
      reorderPct: c.reorderPct ?? 0,
      reorderDelayMs: c.reorderDelayMs ?? DEFAULT_REORDER_DELAY_MS,
      bandwidthKbps: c.bandwidthKbps,
      queueMs: c.queueMs ?? DEFAULT_QUEUE_MS,
    };
  }

  /** Changes the conditions from the next packet on (packets already scheduled keep their fate). */
  set(conditions: LinkConditions): void {
    checkConditions(conditions);
    this.given = { ...conditions };
    this.c = LinkImpairment.resolve(conditions);
    if (this.c.lossPct === 0) this.bad = false;
  }

  /** The conditions as last set. */
  get conditions(): LinkConditions {
    return { ...this.given };
  }

  /** Nothing passes from `from` until `until` (ms on the same clock as {@link decide}); `until` Infinity: until {@link clearOutages}. */
  addOutage(from: number, until: number): void {
    this.outages.push({ from, until });
  }

  clearOutages(): void {
    this.outages = [];
  }

  /** True while an outage covers `now`. */
  down(now: number): boolean {
    this.outages = this.outages.filter((o) => o.until > now);
    return this.outages.some((o) => o.from <= now);
  }

  /** When a packet of `bytes` offered at `now` arrives, or null when it is lost. */
  decide(now: number, bytes: number): number | null {
    const k = this.counters;
    k.packets++;
    k.bytes += bytes;
    if (this.down(now)) {
      k.dropped++;
      k.outageDropped++;
      return null;
    }
    if (this.lost()) {
      k.dropped++;
      return null;
    }
    let sent = now;
    if (this.c.bandwidthKbps !== undefined) {
      const start = Math.max(now, this.busyUntil);
      if (start - now > this.c.queueMs) {
        k.dropped++;
        return null;
      }
      // kbit/s is bits per ms.
      this.busyUntil = start + (bytes * 8) / this.c.bandwidthKbps;
      sent = this.busyUntil;
    }
    const variation = this.c.jitterMs > 0 ? normal(this.random) * this.c.jitterMs : 0;
    let at = sent + Math.max(0, this.c.delayMs + variation);
    if (this.c.reorderPct > 0 && this.random() * 100 < this.c.reorderPct) {
      at = Math.max(at, this.orderFloor) + this.c.reorderDelayMs;
      k.reordered++;
    } else {
      at = Math.max(at, this.orderFloor);
      this.orderFloor = at;
    }
    return at;
  }

  private lost(): boolean {
    const { lossPct, burstLength } = this.c;
    if (lossPct <= 0) return false;
    if (lossPct >= 100) return true;
    if (burstLength <= 1) return this.random() * 100 < lossPct;
    const loss = lossPct / 100;
    const r = 1 / burstLength;
    const p = Math.min(1, (loss * r) / (1 - loss));
    this.bad = this.bad ? this.random() >= r : this.random() < p;
    return this.bad;
  }
}
