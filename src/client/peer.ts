import SimplePeer from 'simple-peer';
import { DATA_CHANNEL_LABEL } from '../schemas/realtime-events.js';

/** A WebRTC implementation for environments without one (Node: `@roamhq/wrtc`). Browsers need none. */
export interface WrtcImplementation {
  RTCPeerConnection: typeof RTCPeerConnection;
  RTCSessionDescription: typeof RTCSessionDescription;
  RTCIceCandidate: typeof RTCIceCandidate;
  MediaStream?: typeof MediaStream;
}

export interface PeerLinkOptions {
  stream: MediaStream;
  iceServers: RTCIceServer[];
  wrtc?: WrtcImplementation;
}

export interface PeerLinkHandlers {
  message(text: string): void;
  track(track: MediaStreamTrack, stream: MediaStream): void;
  /** The link closed without destroy() being called (ICE failed, channel closed, far side gone). */
  closed(error: Error | undefined): void;
}

const decoder = new TextDecoder();

/**
 * One WebRTC connection attempt over simple-peer: caller side, no trickle (the offer carries every
 * candidate), the data channel labelled `kb-voice`. A reconnection makes a new link; the session
 * above it decides what a close means.
 */
export class PeerLink {
  /** Resolves once ICE is connected and the data channel is open; rejects if the link closes first. */
  readonly opened: Promise<void>;
  /** Rejects when the link closes, for whatever reason (destroy() included). */
  readonly closed: Promise<never>;
  private readonly peer: SimplePeer.Instance;
  private readonly offerSdp: Promise<string>;
  private destroyed = false;
  private lastError: Error | undefined;

  constructor(options: PeerLinkOptions, handlers: PeerLinkHandlers) {
    const peer = new SimplePeer({
      initiator: true,
      trickle: false,
      channelName: DATA_CHANNEL_LABEL,
      config: { iceServers: options.iceServers },
      stream: options.stream,
      ...(options.wrtc ? { wrtc: options.wrtc as unknown as SimplePeer.Options['wrtc'] } : {}),
    });
    this.peer = peer;
    peer.on('error', (err: Error) => {
      this.lastError = err;
    });
    const closed = (this.closed = new Promise<never>((_, reject) => {
      peer.once('close', () => {
        reject(this.lastError ?? new Error('peer connection closed'));
        if (!this.destroyed) {
          this.destroyed = true;
          handlers.closed(this.lastError);
        }
      });
    }));
    closed.catch(() => undefined);
    this.offerSdp = Promise.race([
      new Promise<string>((resolve) => {
        peer.on('signal', (data: SimplePeer.SignalData) => {
          if (data.type === 'offer' && data.sdp) resolve(data.sdp);
        });
      }),
      closed,
    ]);
    this.offerSdp.catch(() => undefined);
    this.opened = Promise.race([new Promise<void>((resolve) => peer.once('connect', () => resolve())), closed]);
    this.opened.catch(() => undefined);
    peer.on('data', (chunk: string | Uint8Array) => {
      handlers.message(typeof chunk === 'string' ? chunk : decoder.decode(chunk));
    });
    // simple-peer reports only tracks that come with a stream; the far side may send a bare track,
    // so the track handler is wrapped instead and builds a stream when there is none.
    const pc = (peer as unknown as { _pc?: RTCPeerConnection })._pc;
    if (pc) {
      const original = pc.ontrack;
      pc.ontrack = (event: RTCTrackEvent) => {
        original?.call(pc, event);
        if (this.destroyed) return;
        const Stream = options.wrtc?.MediaStream ?? globalThis.MediaStream;
        handlers.track(event.track, event.streams[0] ?? new Stream([event.track]));
      };
    }
  }

  /** The offer SDP with all candidates, once ICE gathering finished. */
  offer(): Promise<string> {
    return this.offerSdp;
  }

  answer(sdp: string): void {
    this.peer.signal({ type: 'answer', sdp });
  }

  get open(): boolean {
    return !this.destroyed && this.peer.connected;
  }

  /** Bytes queued on the data channel and not yet sent. */
  get bufferedAmount(): number {
    return this.destroyed ? 0 : this.peer.bufferSize;
  }

  /** Sends one text message; throws when the channel is not open. */
  send(text: string): void {
    if (!this.open) throw new Error('data channel is not open');
    this.peer.send(text);
  }

  replaceTrack(oldTrack: MediaStreamTrack, newTrack: MediaStreamTrack, stream: MediaStream): void {
    this.peer.replaceTrack(oldTrack, newTrack, stream);
  }

  /** Closes the link on purpose: `closed` is not reported. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.peer.destroy();
  }
}
