/**
 * The transport: the seam between a VoiceSession and a connection. A session reaches the service
 * only through a {@link TransportProvider} (one {@link Transport} per connection attempt) and a
 * protocol (`RealtimeProtocol`, realtime-protocol.ts: signaling and the data-channel format). The
 * defaults are the simple-peer WebRTC transport and the kb-voice v1 protocol; anything else
 * (kb-voice/testing's scripted service, another protocol) is a separate module that only apps
 * importing it ship. This module depends on no other of the session's: the protocol's module depends on it.
 */
import type { Clock } from '../clock.js';

/** What a transport reports to the session. */
export interface TransportEvents {
  /** One protocol message from the service (text, as received). */
  message(text: string): void;
  /** The service's audio arrived (called once per attempt). */
  audio(stream: MediaStream): void;
  /** The link closed by itself (ICE failed, channel closed, far side gone), not through close(). */
  closed(error: Error | undefined): void;
  /** How this attempt's ICE candidates reach the service (reported when it is decided or changes). */
  signaling?(mode: IceSignaling): void;
}

/**
 * How a WebRTC attempt's ICE candidates reach the service:
 * - `trickle`: the offer left at once; later candidates went by `PATCH` to the session resource.
 * - `fallback`: the service answered that `PATCH` with 404/405, so candidates go in the offer,
 *   gathered for at most the transport's `gatherTimeoutMs` (later attempts of the same transport
 *   provider start this way).
 * - `complete`: trickle is off (transport option, or a protocol without `patch`): the offer carries
 *   what was gathered within `gatherTimeoutMs`.
 */
export type IceSignaling = 'trickle' | 'fallback' | 'complete';

/** The session's signaling resource (the 201's `Location`), reachable once the answer arrived. */
export interface SignalingResource {
  /**
   * Sends one `application/trickle-ice-sdpfrag` fragment (candidates, end-of-candidates, ICE
   * restart); resolves to the answer fragment of a restart, or null. Rejects with the failure
   * (a `status` of 404 or 405 means the service takes no PATCH).
   */
  patch(fragment: string): Promise<string | null>;
}

/** What a transport is given for one attempt. */
export interface TransportOptions {
  /** The microphone stream to send; undefined for a text-only call (audio is received only). */
  microphone: MediaStream | undefined;
  /** Label of the data channel (from the protocol). */
  channel: string;
  /** Whether the protocol can reach the session resource (`connect` then gets a {@link SignalingResource}). */
  trickle?: boolean;
  /** The session's clock: every timer of the transport runs on it, so tests drive them on fake time. */
  clock: Clock;
}

/** The service's answer to an offer. Transports may receive more fields from other protocols. */
export interface SignalingAnswer {
  sessionId: string;
  sdp: string;
}

/**
 * One connection attempt. `connect()` makes the offer, hands it to `exchange` (signaling, done by
 * the session's protocol), applies the answer and resolves once messages can be sent. It rejects
 * when the link closes first; close() makes every pending step reject.
 */
export interface Transport {
  connect(exchange: (offer: { sdp: string }) => Promise<SignalingAnswer>, resource?: SignalingResource): Promise<void>;
  /**
   * Restarts ICE on the same connection (new credentials through the resource, as WHIP does): the
   * promise resolves once ICE is connected again and rejects when that fails (link closed, time
   * limit). Returns undefined when this connection cannot restart (no trickle resource, closed).
   * Optional: without it a dropped link is recovered by a new offer.
   */
  restart?(): Promise<void> | undefined;
  /** True while send() can deliver. */
  readonly open: boolean;
  /** Bytes queued and not yet sent (0 when unknown). */
  readonly bufferedAmount: number;
  /** Sends one protocol message; throws when not open. */
  send(text: string): void;
  /** Sends `track` instead of the microphone's current track (device switch), without renegotiating. */
  replaceTrack(oldTrack: MediaStreamTrack, newTrack: MediaStreamTrack, stream: MediaStream): void;
  /** Closes on purpose; `closed` is not reported. Idempotent. */
  close(): void;
  /**
   * The connection's statistics (`RTCPeerConnection.getStats()`), sampled for call quality.
   * Optional: without it the quality stays `unknown`.
   */
  getStats?(): Promise<RTCStatsReport>;
}

/** Makes transports; the session calls `open` once per connection attempt. */
export interface TransportProvider {
  /**
   * Called by start() before the microphone is opened: throw a VoiceSessionError (e.g.
   * `webrtc_unsupported`) when this environment cannot carry a call.
   */
  preflight?(): void;
  open(options: TransportOptions, events: TransportEvents): Transport;
}
