import type { ClientEvent, ServerEvent } from '../schemas/realtime-events.js';
import { negotiate, openConnection, sleep, type Connection } from './connector.js';
import { VoiceSessionError } from './errors.js';
import type { VoiceSessionOptions } from './options.js';
import { simplePeerTransport } from './peer.js';
import { v1Protocol } from './protocol.js';
import type { Dialect, DialectCodec, IceSignaling, TransportProvider } from './transport.js';

/** What the session hears from the current connection (never from one it dropped). */
export interface LinkHandlers {
  /** A signaling answer named the session (every attempt's, the first one included). */
  answered(sessionId: string): void;
  event(conn: Connection, event: ServerEvent): void;
  /** A message the dialect could not decode. */
  invalid(error: VoiceSessionError): void;
  audio(conn: Connection, stream: MediaStream): void;
  closed(): void;
  /** How the connection's ICE candidates reach the service changed. */
  signaling(mode: IceSignaling): void;
}

type LinkOptions = Pick<VoiceSessionOptions, 'aiId' | 'api' | 'language' | 'userIdentifier' | 'interruptions' | 'transport' | 'protocol' | 'iceServers' | 'wrtc'>;

/**
 * The call's current connection and its wire format: opens attempts, decodes what arrives (and
 * sends the dialect's replies), encodes and sends client events. Attempts it dropped are ignored.
 */
export class Link {
  private conn: Connection | undefined;
  private _iceSignaling: IceSignaling | undefined;
  private readonly provider: TransportProvider;
  private readonly dialect: Dialect;
  private readonly codec: DialectCodec;

  /** The transport and dialect are the options' (default: simple-peer WebRTC and kb-voice v1). */
  constructor(private readonly options: LinkOptions, private readonly on: LinkHandlers) {
    this.provider = options.transport ?? simplePeerTransport({ ...(options.iceServers ? { iceServers: options.iceServers } : {}), ...(options.wrtc ? { wrtc: options.wrtc } : {}) });
    this.dialect = options.protocol ?? v1Protocol;
    this.codec = this.dialect.codec();
  }

  /** Whether the dialect has ping/pong (without, the transport alone notices a dead link). */
  get pings(): boolean {
    return this.dialect.heartbeat !== false;
  }

  get current(): Connection | undefined {
    return this.conn;
  }

  get iceSignaling(): IceSignaling | undefined {
    return this._iceSignaling;
  }

  /** Throws a VoiceSessionError (e.g. `webrtc_unsupported`) when the transport cannot carry a call here. */
  preflight(): void {
    this.provider.preflight?.();
  }

  /** One attempt sending `mic`, continuing `sessionId` when given; it becomes the current connection. */
  async connect(mic: MediaStream, sessionId: string | undefined, timeoutMs: number): Promise<Connection> {
    const conn = (this.conn = openConnection(mic, this.provider, this.dialect, {
      message: (c, text) => this.message(c, text),
      audio: (c, stream) => {
        if (c === this.conn) this.on.audio(c, stream);
      },
      closed: (c) => {
        if (c === this.conn) this.on.closed();
      },
      signaling: (c, mode) => {
        if (c !== this.conn || mode === this._iceSignaling) return;
        this._iceSignaling = mode;
        this.on.signaling(mode);
      },
    }));
    try {
      await negotiate(conn, this.dialect, this.options, sessionId, timeoutMs, (id) => this.on.answered(id));
      return conn;
    } catch (err) {
      if (this.conn === conn) this.conn = undefined;
      throw err;
    }
  }

  /** Validates and sends one client event; a local ValidationError for bad input, `not_connected` without an open link. */
  send(event: ClientEvent): void {
    const message = this.codec.encode(event);
    const transport = this.conn?.transport;
    if (!transport?.open) throw new VoiceSessionError('not_connected', 'The data channel is not open');
    if (message !== undefined) for (const text of typeof message === 'string' ? [message] : message) transport.send(text);
  }

  /** Waits until the data channel sent what it queued (bounded), so a last event leaves before the link closes. */
  async drain(maxMs: number): Promise<void> {
    const until = Date.now() + maxMs;
    while (this.conn && this.conn.transport.bufferedAmount > 0 && Date.now() < until) await sleep(10);
  }

  /** Closes the current connection (it is dropped: its late events are ignored). */
  close(): void {
    this.conn?.transport.close();
    this.conn = undefined;
  }

  /** Cancels the current attempt's signaling requests, then closes it. */
  abort(): void {
    this.conn?.abort.abort();
    this.close();
  }

  private message(conn: Connection, text: string): void {
    if (conn !== this.conn) return;
    const events = this.codec.decode(text);
    if (events instanceof VoiceSessionError) {
      this.on.invalid(events);
      return;
    }
    for (const event of events) this.on.event(conn, event);
    for (const reply of this.codec.takeReplies?.() ?? []) if (conn.transport.open) conn.transport.send(reply);
  }
}
