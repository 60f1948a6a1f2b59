import SimplePeer from 'simple-peer';
import { deadline } from '../clock.js';
import { VoiceSessionError } from './errors.js';
import { rememberReceiver } from './receiver-level.js';
import { CandidateTrickler } from './trickler.js';
import type { IceSignaling, SignalingAnswer, SignalingResource, Transport, TransportEvents, TransportOptions, TransportProvider } from './transport.js';
import { Waiters } from './waiters.js';
import { applyIceRestart, iceCredentials, parseSdpFragment } from '../schemas/sdpfrag.js';

/** A WebRTC implementation for environments without one (Node: `@roamhq/wrtc`). Browsers need none. */
export interface WrtcImplementation {
  RTCPeerConnection: typeof RTCPeerConnection;
  RTCSessionDescription: typeof RTCSessionDescription;
  RTCIceCandidate: typeof RTCIceCandidate;
  MediaStream?: typeof MediaStream;
}

/** Options of {@link simplePeerTransport}. */
export interface SimplePeerTransportOptions {
  /** STUN/TURN servers (default none: host candidates only). */
  iceServers?: RTCIceServer[];
  /** `relay` uses TURN only (default `all`). */
  iceTransportPolicy?: RTCIceTransportPolicy;
  /** WebRTC implementation outside browsers (Node: `@roamhq/wrtc`). */
  wrtc?: WrtcImplementation;
  /**
   * Trickle ICE (default true): the offer is sent as soon as it exists and later candidates follow
   * by `PATCH` to the session resource. False: the offer waits for gathering (`gatherTimeoutMs`).
   */
  trickle?: boolean;
  /**
   * Longest wait for ICE gathering when the offer must carry its candidates (trickle off, or the
   * service refused `PATCH`); also how long a trickled attempt whose `PATCH` was refused may take
   * to connect before it is offered again with its candidates (default 1000 ms).
   */
  gatherTimeoutMs?: number;
  /** Limit of one ICE restart, from starting it to connected again (default 5000 ms). */
  restartTimeoutMs?: number;
  /**
   * Recover a dropped call by an ICE restart of the same connection before any new offer (default
   * false: a new offer at once). Measured on loopback (bench/ice-paths.mjs), a new offer restores
   * the call in a fraction of the restart's time: after a restart the ICE pair works again quickly,
   * but the data channel waits for its SCTP retransmission timer, which backed off during the cut,
   * while a new offer starts a fresh association. See docs/client.md, "Recovery".
   */
  iceRestart?: boolean;
}

const decoder = new TextDecoder();

/**
 * The default transport: WebRTC over simple-peer, caller side, trickle ICE WHIP-style (see
 * {@link SimplePeerTransportOptions.trickle}), optionally ICE restart in place for recovery. `preflight`
 * refuses with `webrtc_unsupported` where there is no RTCPeerConnection, before the microphone is opened.
 */
export function simplePeerTransport(options: SimplePeerTransportOptions = {}): TransportProvider {
  // Once the service refused PATCH, later attempts of this provider send complete offers at once.
  const memory = { patchRefused: false };
  return {
    preflight() {
      if (!options.wrtc && typeof (globalThis as { RTCPeerConnection?: unknown }).RTCPeerConnection !== 'function') {
        throw new VoiceSessionError('webrtc_unsupported', 'This browser has no WebRTC (RTCPeerConnection): voice calls need a current Chrome, Edge, Firefox or Safari');
      }
    },
    open: (attempt, events) => new PeerLink(options, memory, attempt, events),
  };
}

type Signal = SimplePeer.SignalData & { candidate?: { candidate: string; sdpMid?: string | null } };

/**
 * One attempt over simple-peer. A reconnection by new offer makes a new link; an ICE restart keeps
 * this one. While connect() runs, a refused trickle may swap the peer for one sending a complete offer.
 */
class PeerLink implements Transport {
  private peer!: SimplePeer.Instance;
  private closedPromise!: Promise<never>;
  private destroyed = false;
  private lastError: Error | undefined;
  private gotAudio = false;
  private mode: IceSignaling;
  private remoteSdp = '';
  private trickler: CandidateTrickler | undefined;
  /** Who waits for the next local offer (the first one, or an ICE restart's). */
  private offerWaiter: ((sdp: string) => void) | undefined;
  private readonly gatherTimeoutMs: number;
  private iceState = 'new';
  /** A message arrived on this peer's data channel (see whenConnected). */
  private channelOpen = false;
  /** Who waits for the link to come up: simple-peer's 'connect' or the first message (see whenConnected). */
  private readonly linkUp: Waiters;

  constructor(
    private readonly options: SimplePeerTransportOptions,
    private readonly memory: { patchRefused: boolean },
    private readonly attempt: TransportOptions,
    private readonly events: TransportEvents,
  ) {
    this.gatherTimeoutMs = options.gatherTimeoutMs ?? 1000;
    this.linkUp = new Waiters(attempt.clock);
    this.mode = !attempt.trickle || options.trickle === false ? 'complete' : memory.patchRefused ? 'fallback' : 'trickle';
    this.createPeer();
  }

  private createPeer(): void {
    const trickle = this.mode === 'trickle';
    const peer = (this.peer = new SimplePeer({
      initiator: true,
      trickle,
      // Without trickle, simple-peer sends the offer once gathering completes or this long after the first candidate.
      iceCompleteTimeout: this.gatherTimeoutMs,
      channelName: this.attempt.channel,
      config: { iceServers: this.options.iceServers ?? [], ...(this.options.iceTransportPolicy ? { iceTransportPolicy: this.options.iceTransportPolicy } : {}) },
      ...(this.attempt.microphone ? { stream: this.attempt.microphone } : {}),
      ...(this.options.wrtc ? { wrtc: this.options.wrtc as unknown as SimplePeer.Options['wrtc'] } : {}),
    }));
    // A text-only call sends no audio but still receives the answers' (the offer must ask for them).
    if (!this.attempt.microphone) peer.addTransceiver('audio', { direction: 'recvonly' });
    const current = () => peer === this.peer;
    let lastError: Error | undefined;
    peer.on('error', (err: Error) => {
      lastError = err;
      if (current()) this.lastError = err;
    });
    this.closedPromise = new Promise<never>((_, reject) => {
      peer.once('close', () => {
        if (!current()) return; // a peer replaced by the fallback
        reject(lastError ?? new Error('peer connection closed'));
        if (!this.destroyed) {
          this.destroyed = true;
          this.trickler?.stop();
          this.events.closed(this.lastError);
        }
      });
    });
    this.closedPromise.catch(() => undefined);
    peer.on('signal', (data: Signal) => {
      if (!current()) return;
      if (data.type === 'offer' && data.sdp) this.offerWaiter?.(data.sdp);
      else if (data.candidate?.candidate) this.trickler?.add(data.candidate.candidate, data.candidate.sdpMid ?? undefined);
    });
    peer.on('iceStateChange', (connection: string, gathering: string) => {
      if (!current()) return;
      this.iceState = connection;
      if (gathering === 'complete') this.trickler?.end();
    });
    peer.on('data', (chunk: string | Uint8Array) => {
      if (!current()) return;
      this.channelOpen = true;
      this.events.message(typeof chunk === 'string' ? chunk : decoder.decode(chunk));
      this.linkUp.wake();
    });
    peer.on('connect', () => {
      if (current()) this.linkUp.wake();
    });
    peer.on('track', (_track: MediaStreamTrack, stream: MediaStream) => {
      if (current()) this.audio(stream);
    });
    // simple-peer's public 'track' event skips a track that arrives without a stream (a far side
    // may send one: `a=msid:-`), and it has no public access to the RTCPeerConnection; only for that
    // case is the private `_pc`'s handler wrapped, building a stream around the bare track.
    const pc = (peer as unknown as { _pc?: RTCPeerConnection })._pc;
    if (pc) {
      const original = pc.ontrack;
      pc.ontrack = (event: RTCTrackEvent) => {
        original?.call(pc, event);
        // For the meters' fallback (receiver-level.ts); Node's WebRTC has no Web Audio meters to fall back from.
        if (!this.options.wrtc) rememberReceiver(event.track, event.receiver);
        if (event.streams.length > 0 || !current()) return;
        const Stream = this.options.wrtc?.MediaStream ?? globalThis.MediaStream;
        this.audio(new Stream([event.track]));
      };
    }
  }

  private nextOffer(): Promise<string> {
    return this.step(new Promise<string>((resolve) => {
      this.offerWaiter = (sdp) => {
        this.offerWaiter = undefined;
        resolve(sdp);
      };
    }));
  }

  async connect(exchange: (offer: { sdp: string }) => Promise<SignalingAnswer>, resource?: SignalingResource): Promise<void> {
    this.events.signaling?.(this.mode);
    if (this.mode === 'trickle' && resource) {
      const refused = await this.trickled(exchange, resource);
      if (!refused) return;
      // The service takes no PATCH and the link did not come up from the offer alone: offer
      // again, this time with the candidates gathered within the deadline.
      this.trickler?.stop();
      this.trickler = undefined;
      this.peer.destroy();
      this.gotAudio = false; // the new peer brings its own stream
      this.channelOpen = false;
      this.createPeer();
    }
    await this.offerWithCandidates(exchange);
  }

  /** Offer at once, candidates by PATCH. Resolves true when the service refused PATCH and the link did not connect. */
  private async trickled(exchange: (offer: { sdp: string }) => Promise<SignalingAnswer>, resource: SignalingResource): Promise<boolean> {
    const offerPromise = this.nextOffer();
    const trickler = (this.trickler = new CandidateTrickler(resource, this.attempt.clock));
    const sdp = await offerPromise;
    trickler.describe(sdp);
    const answer = await this.step(exchange({ sdp }));
    this.applyAnswer(answer.sdp);
    trickler.start();
    const connected = this.whenConnected();
    const outcome = await this.step(Promise.race([connected.then(() => 'connected' as const), trickler.refusal.then(() => 'refused' as const)]));
    // A refusal, even after the link came up, means no trickle and no ICE restart with this service.
    void trickler.refusal.then(() => {
      if (this.trickler === trickler) this.fallBack();
    });
    if (outcome === 'connected') return false;
    this.fallBack();
    // The far side may still learn this side's address from its connectivity checks.
    const late = await this.step(this.whenConnected(this.gatherTimeoutMs));
    return !late;
  }

  /** The service refused PATCH: this attempt and the provider's later ones send complete offers, and restart() is off. */
  private fallBack(): void {
    if (this.mode !== 'trickle') return;
    this.memory.patchRefused = true;
    this.mode = 'fallback';
    this.events.signaling?.('fallback');
  }

  /** Non-trickle: the offer leaves once gathering completed or `gatherTimeoutMs` passed. */
  private async offerWithCandidates(exchange: (offer: { sdp: string }) => Promise<SignalingAnswer>): Promise<void> {
    const sdp = await this.nextOffer();
    const answer = await this.step(exchange({ sdp }));
    this.applyAnswer(answer.sdp);
    await this.step(this.whenConnected());
  }

  private applyAnswer(sdp: string): void {
    if (this.destroyed) throw new Error('peer connection closed');
    this.remoteSdp = sdp;
    this.peer.signal({ type: 'answer', sdp });
  }

  /**
   * Resolves true at simple-peer's 'connect', or at the first message: its 'connect' also waits
   * until getStats() names the selected candidate pair, polling every 100 ms, while a message
   * proves the data channel open at once (the service speaks first: `session.ready`). False after
   * `maxMs` (session clock; default no limit).
   */
  private whenConnected(maxMs?: number): Promise<boolean> {
    if (this.open) return Promise.resolve(true);
    return this.linkUp.wait(maxMs);
  }

  restart(): Promise<void> | undefined {
    const trickler = this.trickler;
    if (!this.options.iceRestart || this.destroyed || !trickler || this.mode !== 'trickle') return undefined;
    return this.restartWithin(trickler);
  }

  private async restartWithin(trickler: CandidateTrickler): Promise<void> {
    const limit = this.options.restartTimeoutMs ?? 5000;
    const expired = deadline(this.attempt.clock, limit, () => new Error(`ICE restart not connected within ${limit} ms`));
    try {
      await Promise.race([this.restartSteps(trickler), expired.promise]);
    } finally {
      expired.clear();
    }
  }

  private async restartSteps(trickler: CandidateTrickler): Promise<void> {
    // simple-peer has no restart call: its public `offerOptions` (read by each offer it makes) and
    // `negotiate()` (untyped in @types/simple-peer) make the next offer an ICE restart.
    const peer = this.peer as SimplePeer.Instance & { offerOptions: RTCOfferOptions; negotiate(): void };
    const offerPromise = this.nextOffer();
    peer.offerOptions = { iceRestart: true };
    peer.negotiate();
    let offer: string;
    try {
      offer = await offerPromise;
    } finally {
      peer.offerOptions = {};
    }
    const credentials = iceCredentials(offer);
    if (!credentials) throw new Error('the restart offer has no ICE credentials');
    const fragment = await this.step(trickler.restart(offer, credentials));
    const parsed = fragment === null ? undefined : parseSdpFragment(fragment);
    if (!parsed || 'error' in parsed || !parsed.ufrag || !parsed.pwd) {
      throw new Error(`the service answered the ICE restart without new credentials${parsed && 'error' in parsed ? ` (${parsed.error})` : ''}`);
    }
    this.applyAnswer(applyIceRestart(this.remoteSdp, { ...parsed, ufrag: parsed.ufrag, pwd: parsed.pwd }));
    // ICE may never have left `connected` (the path died faster than consent checks noticed): the
    // caller then learns from its own traffic (the session's ping) whether the new path carries.
    const up = () => this.iceState === 'connected' || this.iceState === 'completed';
    if (up()) return;
    await this.step(new Promise<void>((resolve) => {
      const onState = () => {
        if (!up()) return;
        peer.off('iceStateChange', onState);
        resolve();
      };
      peer.on('iceStateChange', onState);
    }));
  }

  get open(): boolean {
    return !this.destroyed && (this.peer.connected || this.channelOpen);
  }

  get bufferedAmount(): number {
    return this.destroyed ? 0 : this.peer.bufferSize;
  }

  send(text: string): void {
    if (!this.open) throw new Error('data channel is not open');
    this.peer.send(text);
  }

  replaceTrack(oldTrack: MediaStreamTrack, newTrack: MediaStreamTrack, stream: MediaStream): void {
    this.peer.replaceTrack(oldTrack, newTrack, stream);
  }

  getStats(): Promise<RTCStatsReport> {
    // simple-peer's own getStats() flattens the report into legacy shapes; the standard one is the RTCPeerConnection's.
    const pc = (this.peer as unknown as { _pc?: RTCPeerConnection })._pc;
    if (this.destroyed || !pc) return Promise.reject(new Error('peer connection closed'));
    return pc.getStats();
  }

  close(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.trickler?.stop();
    this.peer.destroy();
  }

  private audio(stream: MediaStream): void {
    if (this.destroyed || this.gotAudio) return;
    this.gotAudio = true;
    this.events.audio(stream);
  }

  /** Every step also stops when the link closes (close() included). */
  private step<T>(promise: Promise<T>): Promise<T> {
    if (this.destroyed) return Promise.reject(this.lastError ?? new Error('peer connection closed'));
    return Promise.race([promise, this.closedPromise]);
  }
}
