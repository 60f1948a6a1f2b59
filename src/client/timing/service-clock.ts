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

interface Sample {
  rttMs: number;
  /** service clock minus client clock (ms); null when the pong did not carry the service's time. */
  offsetMs: number | null;
}

export class ServiceClock {
  private readonly samples: Sample[] = [];

  /** A pong of a ping sent at `sentAt` arrived at `receivedAt` (client clock), answered at the service's `serviceAt`. */
  pong(sentAt: number, receivedAt: number, serviceAt: number | undefined): void {
    const rttMs = receivedAt - sentAt;
    if (!(rttMs >= 0) || !Number.isFinite(rttMs)) return; // not one of our pings (or another clock)
    const offsetMs = typeof serviceAt === 'number' && Number.isFinite(serviceAt) ? serviceAt - (sentAt + rttMs / 2) : null;
    this.samples.push({ rttMs, offsetMs });
    if (this.samples.length > CLOCK_SAMPLES) this.samples.shift();
  }

  /** The shortest recent round trip (ms); null before the first pong. */
  get rttMs(): number | null {
    return this.best()?.rttMs ?? null;
  }

  /** Service clock minus client clock (ms), from the shortest round trip that carried the service's time; null when unknown. */
  get offsetMs(): number | null {
    let best: Sample | undefined;
    for (const s of this.samples) if (s.offsetMs !== null && (!best || s.rttMs < best.rttMs)) best = s;
    return best?.offsetMs ?? null;
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

  private best(): Sample | undefined {
    let best: Sample | undefined;
    for (const s of this.samples) if (!best || s.rttMs < best.rttMs) best = s;
    return best;
  }
}
