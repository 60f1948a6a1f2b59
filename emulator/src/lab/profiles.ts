import { checkConditions, type LinkConditions } from './link.js';

/** Conditions of both directions of a path: `up` from the caller to the service, `down` back. */
export interface NetworkProfile {
  up: LinkConditions;
  down: LinkConditions;
}

/**
 * Named conditions, best first (each one's E-model estimate is below the one before: docs/quality.md).
 * Delays are one way, on top of loopback. Bandwidth and delay come from the public throttling
 * presets named in each entry; loss, burst and jitter are this project's choices within the ranges
 * those and ITU-T Y.1541 describe, chosen so that the profiles are clearly apart: each one's delay
 * is at least the one before's, and but for satellite (much longer delay, less loss and jitter than
 * congested Wi-Fi) its jitter and loss too, so a busy machine adding delay cannot swap them.
 */
export const NETWORK_PROFILES = Object.freeze({
  /** No impairment: the plain forwarder (a baseline). */
  none: { up: {}, down: {} },
  /**
   * Good Wi-Fi: Firefox DevTools "Wi-Fi" (30/15 Mbit/s, 2 ms) with a few ms of air-time jitter and
   * 0.1 % loss (ITU-T Y.1541 class 0/1 loss objective, 1e-3).
   */
  wifi: {
    up: { delayMs: 5, jitterMs: 2, lossPct: 0.1, bandwidthKbps: 15_000 },
    down: { delayMs: 5, jitterMs: 2, lossPct: 0.1, bandwidthKbps: 30_000 },
  },
  /**
   * 4G: WebPageTest "4G" (9 Mbit/s, 170 ms RTT), 15 ms jitter, 1 % loss in bursts of 2 (radio-link
   * retransmissions hide most loss, hand-overs lose short bursts).
   */
  '4g': {
    up: { delayMs: 85, jitterMs: 15, lossPct: 1, burstLength: 2, bandwidthKbps: 9_000 },
    down: { delayMs: 85, jitterMs: 15, lossPct: 1, burstLength: 2, bandwidthKbps: 9_000 },
  },
  /**
   * Congested Wi-Fi: a shared access point near capacity — WebPageTest "DSL"-like capacity
   * (1.5 Mbit/s / 384 kbit/s) with a full queue in front of it (bufferbloat: 240 ms RTT), 30 ms
   * jitter, 3 % loss in bursts of 3, 0.5 % reordering.
   */
  'congested-wifi': {
    up: { delayMs: 120, jitterMs: 30, lossPct: 3, burstLength: 3, reorderPct: 0.5, bandwidthKbps: 384 },
    down: { delayMs: 120, jitterMs: 30, lossPct: 3, burstLength: 3, reorderPct: 0.5, bandwidthKbps: 1_500 },
  },
  /**
   * Geostationary satellite broadband: ITU-T G.114 puts a GEO hop at about 260 ms one way; with the
   * ground segments 325 ms each way (650 ms RTT), 10 ms jitter, 0.5 % loss, 1 / 2 Mbit/s.
   */
  satellite: {
    up: { delayMs: 325, jitterMs: 10, lossPct: 0.5, bandwidthKbps: 1_000 },
    down: { delayMs: 325, jitterMs: 10, lossPct: 0.5, bandwidthKbps: 2_000 },
  },
  /**
   * Poor 3G at a cell edge: 400 kbit/s both ways (WebPageTest "3G Slow"), 650 ms RTT (between "3G
   * Slow", 400 ms, and "Mobile Edge", 840 ms), 50 ms jitter, 6 % loss in bursts of 2 (BrowserStack's
   * lossy 3G/3.5G profiles lose 1 %; this is where calls break up).
   */
  '3g-poor': {
    up: { delayMs: 325, jitterMs: 50, lossPct: 6, burstLength: 2, bandwidthKbps: 400 },
    down: { delayMs: 325, jitterMs: 50, lossPct: 6, burstLength: 2, bandwidthKbps: 400 },
  },
} satisfies Record<string, NetworkProfile>);

export type NetworkProfileName = keyof typeof NETWORK_PROFILES;

/** Profile names, best first. */
export const PROFILE_NAMES = Object.freeze(Object.keys(NETWORK_PROFILES) as NetworkProfileName[]);

/** A profile by name (RangeError naming the known ones when unknown), or a given profile checked. */
export function resolveProfile(profile: NetworkProfileName | NetworkProfile): NetworkProfile {
  if (typeof profile === 'string') {
    const found = (NETWORK_PROFILES as Record<string, NetworkProfile>)[profile];
    if (!found) throw new RangeError(`Unknown network profile "${profile}"; known: ${PROFILE_NAMES.join(', ')}`);
    return found;
  }
  if (!profile || typeof profile !== 'object' || !profile.up || !profile.down) throw new TypeError('A network profile is { up, down } conditions');
  checkConditions(profile.up, 'up');
  checkConditions(profile.down, 'down');
  return profile;
}
