import SimplePeer from 'simple-peer';
import { VoiceSessionError } from './errors.js';
import type { Transport, TransportEvents, TransportOptions, TransportProvider } from './transport.js';

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
  /** WebRTC implementation outside browsers (Node: `@roamhq/wrtc`). */
  wrtc?: WrtcImplementation;
}

const decoder = new TextDecoder();

/**
 * The default transport: WebRTC over simple-peer, caller side, no trickle (the offer carries every
 * candidate). `preflight` refuses with `webrtc_unsupported` where there is no RTCPeerConnection,
 * before the microphone is opened.
 */
export function simplePeerTransport(options: SimplePeerTransportOptions = {}): TransportProvider {
  return {
    preflight() {
      if (!options.wrtc && typeof (globalThis as { RTCPeerConnection?: unknown }).RTCPeerConnection !== 'function') {
        throw new VoiceSessionError('webrtc_unsupported', 'This browser has no WebRTC (RTCPeerConnection): voice calls need a current Chrome, Edge, Firefox or Safari');
      }
    },
    open: (attempt, events) => new PeerLink(options, attempt, events),
  };
}

/** One attempt over simple-peer. A reconnection makes a new link; the session decides what a close means. */
class PeerLink implements Transport {
  private readonly peer: SimplePeer.Instance;
  private readonly closedPromise: Promise<never>;
  private destroyed = false;
  private lastError: Error | undefined;
  private gotAudio = false;

  constructor(options: SimplePeerTransportOptions, attempt: TransportOptions, private readonly events: TransportEvents) {
    const peer = (this.peer = new SimplePeer({
      initiator: true,
      trickle: false,
      channelName: attempt.channel,
      config: { iceServers: options.iceServers ?? [] },
      stream: attempt.microphone,
      ...(options.wrtc ? { wrtc: options.wrtc as unknown as SimplePeer.Options['wrtc'] } : {}),
    }));
    peer.on('error', (err: Error) => {
      this.lastError = err;
    });
    this.closedPromise = new Promise<never>((_, reject) => {
      peer.once('close', () => {
        reject(this.lastError ?? new Error('peer connection closed'));
        if (!this.destroyed) {
          this.destroyed = true;
          events.closed(this.lastError);
        }
      });
    });
    this.closedPromise.catch(() => undefined);
    peer.on('data', (chunk: string | Uint8Array) => {
      events.message(typeof chunk === 'string' ? chunk : decoder.decode(chunk));
    });
    peer.on('track', (_track: MediaStreamTrack, stream: MediaStream) => this.audio(stream));
    // simple-peer's public 'track' event skips a track that arrives without a stream (a far side
    // may send one: `a=msid:-`), and it has no public access to the RTCPeerConnection; only for that
    // case is the private `_pc`'s handler wrapped, building a stream around the bare track.
    const pc = (peer as unknown as { _pc?: RTCPeerConnection })._pc;
    if (pc) {
      const original = pc.ontrack;
      pc.ontrack = (event: RTCTrackEvent) => {
        original?.call(pc, event);
        if (event.streams.length > 0) return;
        const Stream = options.wrtc?.MediaStream ?? globalThis.MediaStream;
        this.audio(new Stream([event.track]));
      };
    }
  }

  async connect(exchange: (offer: { sdp: string }) => Promise<{ sdp: string }>): Promise<void> {
    const sdp = await this.step(new Promise<string>((resolve) => {
      this.peer.on('signal', (data: SimplePeer.SignalData) => {
        if (data.type === 'offer' && data.sdp) resolve(data.sdp);
      });
    }));
    const answer = await this.step(exchange({ sdp }));
    if (this.destroyed) throw new Error('peer connection closed');
    this.peer.signal({ type: 'answer', sdp: answer.sdp });
    if (!this.peer.connected) await this.step(new Promise<void>((resolve) => this.peer.once('connect', () => resolve())));
  }

  get open(): boolean {
    return !this.destroyed && this.peer.connected;
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

  close(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.peer.destroy();
  }

  private audio(stream: MediaStream): void {
    if (this.destroyed || this.gotAudio) return;
    this.gotAudio = true;
    this.events.audio(stream);
  }

  /** Every step also stops when the link closes (close() included). */
  private step<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.closedPromise]);
  }
}
