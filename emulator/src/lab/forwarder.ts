import dgram from 'node:dgram';
import { LinkImpairment, type LinkCounters } from './link.js';
import { resolveProfile, type NetworkProfile, type NetworkProfileName } from './profiles.js';
import { seededRandom, type Random } from './random.js';

/** The clock and timers of a lab; real ones by default, fake ones in tests. */
export interface LabClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: LabClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface NetworkLabOptions {
  /** Conditions: a profile name or `{ up, down }`; default `none`. */
  profile?: NetworkProfileName | NetworkProfile;
  /** Seed of the packet fates (same seed, same losses); default random. */
  seed?: number;
  /** Loopback address the lab listens on and sends from; default 127.0.0.1. */
  address?: string;
  clock?: LabClock;
}

/** Counters of both directions. */
export interface LabCounters {
  up: LinkCounters;
  down: LinkCounters;
}

/**
 * A user-space network path for UDP (no netem needed): the caller sends to {@link port}, the lab
 * forwards to `target` from a socket of its own per caller address, and each direction goes
 * through a {@link LinkImpairment} (loss, bursts, delay, jitter, reordering, bandwidth cap,
 * outages). `switchPath()` changes the address the service sees, as a NAT rebinding or a move from
 * Wi-Fi to mobile does.
 */
export class NetworkLab {
  readonly address: string;
  port = 0;
  readonly up: LinkImpairment;
  readonly down: LinkImpairment;
  private readonly outer: dgram.Socket;
  private readonly inner = new Map<string, dgram.Socket>();
  private readonly pending = new Set<unknown>();
  private readonly clock: LabClock;
  private sourceAddress: string;
  private closed = false;

  private constructor(readonly target: { address: string; port: number }, options: NetworkLabOptions) {
    this.address = options.address ?? '127.0.0.1';
    this.sourceAddress = this.address;
    this.clock = options.clock ?? realClock;
    const random: Random = seededRandom(options.seed ?? Math.floor(Math.random() * 2 ** 32));
    const profile = resolveProfile(options.profile ?? 'none');
    this.up = new LinkImpairment(profile.up, random);
    this.down = new LinkImpairment(profile.down, random);
    this.outer = dgram.createSocket('udp4');
  }

  /** Starts a lab in front of `target` (the service's host candidate). */
  static async start(target: { address: string; port: number }, options: NetworkLabOptions = {}): Promise<NetworkLab> {
    const lab = new NetworkLab(target, options);
    await new Promise<void>((resolve, reject) => {
      lab.outer.once('error', reject);
      lab.outer.bind(0, lab.address, () => {
        lab.outer.off('error', reject);
        resolve();
      });
    });
    lab.port = lab.outer.address().port;
    lab.outer.on('message', (msg, from) => lab.fromCaller(msg, from));
    lab.outer.on('error', () => {}); // e.g. ICMP unreachable after the caller left: UDP has no session to fail
    return lab;
  }

  get counters(): LabCounters {
    return { up: { ...this.up.counters }, down: { ...this.down.counters } };
  }

  /** New conditions for both directions from the next packet on. */
  setProfile(profile: NetworkProfileName | NetworkProfile): void {
    const p = resolveProfile(profile);
    this.up.set(p.up);
    this.down.set(p.down);
  }

  /** Nothing passes either way from now on, for `ms` (default: until {@link restore}). */
  outage(ms?: number): void {
    if (ms !== undefined && !(ms >= 0)) throw new RangeError(`outage ms must be >= 0, got ${ms}`);
    const now = this.clock.now();
    const until = ms === undefined ? Infinity : now + ms;
    this.up.addOutage(now, until);
    this.down.addOutage(now, until);
  }

  /** Ends every outage. */
  restore(): void {
    this.up.clearOutages();
    this.down.clearOutages();
  }

  /**
   * The caller's traffic reaches the service from a new port (and `address`, when given: another
   * loopback address such as 127.0.0.2), as after a NAT rebinding or a network change; the old
   * one is closed.
   */
  switchPath(address?: string): void {
    if (address !== undefined) this.sourceAddress = address;
    for (const s of this.inner.values()) s.close();
    this.inner.clear();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.pending) this.clock.clearTimeout(h);
    this.pending.clear();
    this.outer.close();
    for (const s of this.inner.values()) s.close();
    this.inner.clear();
  }

  private fromCaller(msg: Buffer, from: dgram.RemoteInfo): void {
    if (this.closed) return;
    const key = `${from.address}:${from.port}`;
    let socket = this.inner.get(key);
    if (!socket) {
      const s = (socket = dgram.createSocket('udp4'));
      this.inner.set(key, s);
      s.on('error', () => {});
      s.bind(0, this.sourceAddress);
      s.on('message', (back) => this.schedule(this.down, back, () => this.outer.send(back, from.port, from.address)));
    }
    const out = socket;
    this.schedule(this.up, msg, () => {
      // The path may have switched while this packet was in flight: it goes out of the new socket.
      (this.inner.get(key) ?? out).send(msg, this.target.port, this.target.address);
    });
  }

  private schedule(link: LinkImpairment, msg: Buffer, send: () => void): void {
    const now = this.clock.now();
    const at = link.decide(now, msg.length);
    if (at === null) return;
    const deliver = () => {
      if (this.closed) return;
      try {
        send();
      } catch {
        // a socket closed by switchPath() between scheduling and sending: the packet is lost
      }
    };
    if (at <= now) return deliver();
    const handle = this.clock.setTimeout(() => {
      this.pending.delete(handle);
      deliver();
    }, at - now);
    this.pending.add(handle);
  }
}
