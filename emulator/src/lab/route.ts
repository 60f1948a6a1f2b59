import type { SdpFragment } from 'kb-voice/schemas';
import type { RealtimeService } from '../realtime/index.js';
import { NetworkLab, type NetworkLabOptions } from './forwarder.js';
import { resolveProfile, type NetworkProfile, type NetworkProfileName } from './profiles.js';

/** `a=candidate:` of a UDP IPv4 host candidate: address and port captured. */
const HOST_CANDIDATE = /^a=candidate:\S+ \d+ udp \d+ (\d+\.\d+\.\d+\.\d+) (\d+) typ host.*$/im;

/** The SDP without its candidate lines (the service then learns the caller's address from its checks). */
export function stripCandidates(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  return sdp.split(/\r?\n/).filter((l) => !l.startsWith('a=candidate:')).join(eol);
}

/** The first UDP IPv4 host candidate of an SDP, or null. */
export function hostCandidate(sdp: string): { address: string; port: number; line: string } | null {
  const m = HOST_CANDIDATE.exec(sdp);
  return m ? { address: m[1]!, port: Number(m[2]), line: m[0] } : null;
}

/** The SDP with `candidate` as its only candidate, moved to `address:port`. */
export function replaceCandidate(sdp: string, candidate: { address: string; port: number; line: string }, to: { address: string; port: number }): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(/\r?\n/);
  const first = lines.indexOf(candidate.line);
  return lines
    .map((l, i) => (i === first ? l.replace(` ${candidate.address} ${candidate.port} typ host`, ` ${to.address} ${to.port} typ host`) : l))
    .filter((l, i) => !l.startsWith('a=candidate:') || i === first)
    .join(eol);
}

/**
 * How the emulator's realtime signaling puts its media behind something: the offer and trickled
 * fragments lose the caller's candidates, the answer (and an ICE restart's answer) gets the
 * address the caller must send to.
 */
export interface MediaPath {
  offer(sdp: string): string;
  fragment(fragment: SdpFragment): SdpFragment;
  answer(sdp: string, sessionId: string): Promise<string>;
}

export interface LabRouteOptions extends Omit<NetworkLabOptions, 'profile'> {
  profile?: NetworkProfileName | NetworkProfile;
}

/**
 * A {@link MediaPath} through network labs: each answer (a new offer, an ICE restart) gets a lab of
 * its own in front of the service's host candidate, under the route's current conditions. The
 * route acts on all of them: `setProfile`, `outage` (which also holds labs made during it, so a
 * reconnection attempt meets the same dead network), `restore`, `switchPath`.
 */
export class LabRoute implements MediaPath {
  private readonly made: { sessionId: string; lab: NetworkLab }[] = [];
  private profile: NetworkProfile;
  private outageUntil = -Infinity;
  private closed = false;

  constructor(private readonly options: LabRouteOptions = {}) {
    this.profile = resolveProfile(options.profile ?? 'none');
  }

  /** Every lab made so far, oldest first (closed ones included, for their counters). */
  get labs(): readonly NetworkLab[] {
    return this.made.map((m) => m.lab);
  }

  /** The newest lab of a session (its current path), if any. */
  lab(sessionId: string): NetworkLab | undefined {
    for (let i = this.made.length - 1; i >= 0; i--) if (this.made[i]!.sessionId === sessionId) return this.made[i]!.lab;
    return undefined;
  }

  offer(sdp: string): string {
    return stripCandidates(sdp);
  }

  fragment(fragment: SdpFragment): SdpFragment {
    return { ...fragment, media: fragment.media.map((m) => ({ ...m, candidates: [] })) };
  }

  async answer(sdp: string, sessionId: string): Promise<string> {
    if (this.closed) throw new Error('the lab route is closed');
    const candidate = hostCandidate(sdp);
    if (!candidate) return sdp;
    const seed = this.options.seed === undefined ? undefined : this.options.seed + this.made.length;
    const lab = await NetworkLab.start(
      { address: candidate.address, port: candidate.port },
      { ...this.options, profile: this.profile, ...(seed !== undefined ? { seed } : {}) },
    );
    const now = (this.options.clock ?? performance).now();
    if (this.outageUntil > now) lab.outage(this.outageUntil === Infinity ? undefined : this.outageUntil - now);
    this.made.push({ sessionId, lab });
    return replaceCandidate(sdp, candidate, { address: lab.address, port: lab.port });
  }

  setProfile(profile: NetworkProfileName | NetworkProfile): void {
    this.profile = resolveProfile(profile);
    for (const { lab } of this.made) lab.setProfile(this.profile);
  }

  /** Every path is cut for `ms` (default: until {@link restore}). */
  outage(ms?: number): void {
    const now = (this.options.clock ?? performance).now();
    this.outageUntil = ms === undefined ? Infinity : now + ms;
    for (const { lab } of this.made) lab.outage(ms);
  }

  restore(): void {
    this.outageUntil = -Infinity;
    for (const { lab } of this.made) lab.restore();
  }

  /** Every caller's traffic reaches the service from a new port (see {@link NetworkLab.switchPath}). */
  switchPath(address?: string): void {
    for (const { lab } of this.made) lab.switchPath(address);
  }

  close(): void {
    this.closed = true;
    for (const { lab } of this.made) lab.close();
  }
}

/** Puts a realtime service's media behind `path` (offers of both protocols, PATCH fragments, answers and restart answers). */
export function routeRealtime(service: RealtimeService, path: MediaPath): RealtimeService {
  return {
    ...service,
    async handleOffer(robotId, offer) {
      // either protocol: both carry the caller's SDP and get an answer SDP with the session id
      const out = await service.handleOffer(robotId, { ...offer, sdp: path.offer(offer.sdp) });
      return { ...out, sdp: await path.answer(out.sdp, out.session_id) };
    },
    async handlePatch(robotId, sessionId, fragment) {
      const out = await service.handlePatch(robotId, sessionId, path.fragment(fragment));
      return out === null ? null : path.answer(out, sessionId);
    },
  };
}
