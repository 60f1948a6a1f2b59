import type { CandidateCounts, NetworkCheck } from './types.js';

/** One gathered candidate, as `RTCPeerConnectionIceEvent` gives it (`url`: the STUN/TURN server that produced it). */
export interface GatheredCandidate {
  /** The SDP `candidate:` line. */
  readonly candidate: string;
  /** `RTCIceCandidate.relayProtocol` where the browser has it (`udp`, `tcp`, `tls`). */
  readonly relayProtocol?: string | null;
  /** The ICE server URL behind a srflx or relay candidate, where the browser says. */
  readonly url?: string | null;
}

const EMPTY: CandidateCounts = { host: 0, srflx: 0, relay: 0, relayTcp: 0, udp: 0 };

/** Parses `candidate:<foundation> <component> <protocol> <priority> <address> <port> typ <type> …`. */
export function parseCandidate(line: string): { protocol: string; type: string } | undefined {
  const fields = line.replace(/^a=/, '').trim().split(/\s+/);
  const typ = fields.indexOf('typ');
  if (!fields[0]?.startsWith('candidate:') || typ < 0 || fields.length < 8) return undefined;
  return { protocol: (fields[2] ?? '').toLowerCase(), type: (fields[typ + 1] ?? '').toLowerCase() };
}

/** TURN's own transport: the browser's `relayProtocol`, else the server URL's (`turns:` is TLS over TCP). */
function relayOverTcp(c: GatheredCandidate): boolean {
  if (c.relayProtocol) return c.relayProtocol === 'tcp' || c.relayProtocol === 'tls';
  const url = c.url ?? '';
  return /^turns:/i.test(url) || /[?&]transport=tcp\b/i.test(url);
}

/** Counts candidates by kind (unparseable lines are ignored: a browser's private extension, an mDNS quirk). */
export function countCandidates(candidates: readonly GatheredCandidate[]): CandidateCounts {
  const counts = { ...EMPTY };
  for (const c of candidates) {
    const parsed = parseCandidate(c.candidate);
    if (!parsed) continue;
    if (parsed.type === 'host') counts.host++;
    else if (parsed.type === 'srflx' || parsed.type === 'prflx') counts.srflx++;
    else if (parsed.type === 'relay') {
      counts.relay++;
      if (relayOverTcp(c)) counts.relayTcp++;
    }
    // A relay candidate's own protocol is the relayed (UDP) address: UDP from this device is the rest.
    if (parsed.type !== 'relay' && parsed.protocol === 'udp') counts.udp++;
  }
  return counts;
}

/** Which kinds of ICE server `iceServers` names. */
export function serverKinds(iceServers: readonly RTCIceServer[] = []): { stun: boolean; turnUdp: boolean; turnTcp: boolean } {
  const kinds = { stun: false, turnUdp: false, turnTcp: false };
  for (const server of iceServers) {
    for (const url of typeof server.urls === 'string' ? [server.urls] : server.urls) {
      if (/^stuns?:/i.test(url)) kinds.stun = true;
      else if (/^turns:/i.test(url) || /[?&]transport=tcp\b/i.test(url)) kinds.turnTcp = true;
      else if (/^turn:/i.test(url)) kinds.turnUdp = true;
    }
  }
  return kinds;
}

/**
 * Grades what gathering found (docs/check.md, "Network"). UDP is *seen* when a STUN or TURN server
 * answered over UDP (a srflx candidate), *blocked* when this device has no UDP candidate at all or
 * every server it should have reached over UDP stayed silent, and *unknown* with no server to ask.
 * Blocked UDP is fine when TURN over TCP answered: calls then go through it.
 */
export function gradeNetwork(candidates: readonly GatheredCandidate[], iceServers: readonly RTCIceServer[] = []): NetworkCheck {
  const counts = countCandidates(candidates);
  const servers = serverKinds(iceServers);
  const askedOverUdp = servers.stun || servers.turnUdp;
  const udp: boolean | null = counts.udp === 0 ? false : counts.srflx > 0 ? true : askedOverUdp ? false : null;
  const part = (grade: NetworkCheck['grade'], code: string, message: string): NetworkCheck => ({ grade, code, message, candidates: counts, udp });
  if (udp === false) {
    if (counts.relayTcp > 0) return part('good', 'turn_tcp', 'UDP is blocked on this network; calls will go through your TURN server over TCP.');
    if (counts.relay > 0) return part('warning', 'turn_udp_only', 'UDP to the internet looks blocked, and TURN answered only over UDP: add a TURN URL with ?transport=tcp (or turns:) so calls get through.');
    return part('bad', 'needs_turn_tcp', servers.turnTcp
      ? 'UDP is blocked on this network and the TURN server over TCP did not answer: check its address and credentials.'
      : 'UDP is blocked on this network: calls need TURN over TCP. Add a TURN server with ?transport=tcp (or turns:) to iceServers.');
  }
  if (servers.turnTcp && counts.relayTcp === 0) {
    return part('warning', 'turn_unreachable', 'UDP works, but the TURN server over TCP did not answer: networks that block UDP will not get through. Check its address and credentials.');
  }
  if (udp === true) return part('good', 'udp_ok', 'UDP works from this network.');
  return part('good', 'udp_unverified', 'This device can send UDP (not verified beyond it: configure a STUN server or run the test connection to check).');
}

/** What gathering needs from the platform: a constructor (the browser's, or `wrtc`'s in Node). */
export type PeerConnectionConstructor = new (config?: RTCConfiguration) => RTCPeerConnection;

/**
 * Gathers this device's ICE candidates once, without any signaling (nothing reaches the service):
 * an offer with one data channel, collected until gathering completes, `maxMs` passes or `signal`
 * aborts. Resolves with what was gathered and whether it was cut short.
 */
export function gatherCandidates(
  Peer: PeerConnectionConstructor,
  iceServers: RTCIceServer[],
  maxMs: number,
  timers: { setTimeout(cb: () => void, ms: number): unknown; clearTimeout(handle: unknown): void },
  signal?: AbortSignal,
): Promise<{ candidates: GatheredCandidate[]; timedOut: boolean }> {
  const candidates: GatheredCandidate[] = [];
  let pc: RTCPeerConnection;
  try {
    pc = new Peer({ iceServers });
  } catch (err) {
    return Promise.reject(err); // a malformed iceServers URL (SyntaxError) or credentials missing (InvalidAccessError)
  }
  return new Promise((resolve) => {
    let timer: unknown;
    const finish = (timedOut: boolean) => {
      timers.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      pc.onicecandidate = null;
      try { pc.close(); } catch { /* closed already */ }
      resolve({ candidates, timedOut });
    };
    const onAbort = () => finish(true);
    pc.onicecandidate = (event) => {
      if (!event.candidate) return finish(false);
      if (!event.candidate.candidate) return; // Firefox's empty end-of-generation candidate
      const c = event.candidate as RTCIceCandidate & { relayProtocol?: string | null; url?: string | null };
      candidates.push({ candidate: c.candidate, relayProtocol: c.relayProtocol ?? null, url: (event as { url?: string | null }).url ?? c.url ?? null });
    };
    timer = timers.setTimeout(() => finish(true), maxMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    pc.createDataChannel('kb-voice-check');
    pc.createOffer().then((offer) => pc.setLocalDescription(offer)).catch(() => finish(false));
  });
}
