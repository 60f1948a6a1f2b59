/**
 * The service's clock as seen from the client, estimated from ping round trips (NTP's way): a pong
 * that carries the service's time `at_ms` when it answered was sent, on the client's clock, about
 * half a round trip before it arrived. Of the last {@link CLOCK_SAMPLES} pongs the one with the
 * shortest round trip is trusted (queueing only ever lengthens a round trip, and with it the
 * error, which is at most half of it). A service time then maps onto the client's clock as
 * `serviceMs - offset`.
 *
 * Without `at_ms` (an OpenAI-dialect server, an older kb-voice service) only the round trip is
 * known: {@link arrivalToClient} then takes an event as sent half a round trip before it arrived.
 */
export const CLOCK_SAMPLES = 16;

export class ServiceClock {
  /** The last pongs: [round trip, service clock minus client clock (NaN: the pong did not say its time)]. */
  private readonly samples: Array<[rttMs: number, offsetMs: number]> = [];

  /** A pong of a ping sent at `sentAt` arrived at `receivedAt` (client clock), answered at the service's `serviceAt`. */
  pong(sentAt: number, receivedAt: number, serviceAt: number | undefined): void {
    const rtt = receivedAt - sentAt;
    if (!(rtt >= 0 && rtt < Infinity)) return; // not one of our pings (or another clock)
    this.samples.push([rtt, typeof serviceAt === 'number' ? serviceAt - sentAt - rtt / 2 : NaN]);
    if (this.samples.length > CLOCK_SAMPLES) this.samples.shift();
  }

  /** The shortest recent round trip (ms); null before the first pong. */
  get rttMs(): number | null {
    return this.best(false)?.[0] ?? null;
  }

  /** Service clock minus client clock (ms), from the shortest round trip that carried the service's time; null when unknown. */
  get offsetMs(): number | null {
    return this.best(true)?.[1] ?? null;
  }

  /** A time on the service's clock, on the client's; null while the offset is unknown. */
  toClient(serviceMs: number): number | null {
    const offset = this.offsetMs;
    return offset === null ? null : serviceMs - offset;
  }

  /** When an event that arrived at `receivedAt` was sent, on the client's clock (half the round trip before; the arrival itself before the first pong). */
  arrivalToClient(receivedAt: number): number {
    return receivedAt - (this.rttMs ?? 0) / 2;
  }

  /** A new connection: its path and the service's clock for it may differ. */
  reset(): void {
    this.samples.length = 0;
  }

  /** The sample with the shortest round trip (of those that carried the service's time). */
  private best(timed: boolean): [number, number] | undefined {
    let best: [number, number] | undefined;
    for (const s of this.samples) if ((!timed || !Number.isNaN(s[1])) && (!best || s[0] < best[0])) best = s;
    return best;
  }
}
