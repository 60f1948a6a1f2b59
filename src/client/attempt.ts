import { PROTOCOL_VERSION, type ClientEvent, type ServerEvent } from '../schemas/realtime-events.js';
import { deadline, sleep, type Clock } from '../clock.js';
import { Waiters } from './waiters.js';
import { fromApiFailure, VoiceSessionError } from './errors.js';
import type { VoiceSessionOptions } from './options.js';
import type { Command, RealtimeProtocol, RealtimeProtocolCodec, SignalingRequest } from './realtime-protocol.js';
import type { IceSignaling, Transport, TransportProvider } from './transport.js';

/** What an attempt reports (only while it is the session's current one does the session act on it). */
export interface AttemptReport {
  /** A signaling answer named the session. */
  answered(attempt: Attempt, sessionId: string): void;
  event(attempt: Attempt, event: ServerEvent): void;
  /** A message the protocol could not decode. */
  invalid(attempt: Attempt, error: VoiceSessionError): void;
  audio(attempt: Attempt, stream: MediaStream): void;
  /** The link closed by itself (ICE failed, channel closed, far side gone). */
  closed(attempt: Attempt): void;
  signaling(attempt: Attempt, mode: IceSignaling): void;
}

/** What every attempt of one session shares: where to connect, how, and the session's codec and clock. */
export interface AttemptSetup {
  target: Pick<VoiceSessionOptions, 'aiId' | 'api' | 'language' | 'userIdentifier' | 'interruptions' | 'turnTaking'>;
  provider: TransportProvider;
  protocol: RealtimeProtocol;
  codec: RealtimeProtocolCodec;
  clock: Clock;
}

/**
 * How long the client waits, after `session.end`, for the service to close the link before closing
 * it itself. The service closes first (the emulator within milliseconds, once the last turn is
 * recorded and its last events sent) because the side that closes must be the side that has
 * stopped sending: a Node peer (@roamhq/wrtc) that sends on a data channel while the far end closes
 * it can crash its process — wrtc's `RTCDataChannel.send` checks the native channel, copies the
 * message, then uses the channel, which libwebrtc's signaling thread may have released meanwhile
 * (SIGSEGV in `node_webrtc::RTCDataChannel::Send`, seen under load; docs/contributing.md).
 */
export const GOODBYE_CLOSE_MS = 1000;

/** Timeouts of attempts: less informative than any other failure (see Recovery). */
const timeouts = new WeakSet<object>();

/** Whether `err` is an attempt that ran out of time (any other failure says more). */
export function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && timeouts.has(err);
}

/**
 * One try at carrying the call: its transport (peer connection), its signaling requests and, through
 * the transport, its trickle. It decodes what arrives with the session's codec and reports it;
 * {@link run} resolves once the call can go on over it (answer applied, the assistant's audio
 * attached, `session.ready` seen), so the first words are never cut off.
 */
export class Attempt {
  readonly transport: Transport;
  /** The session this attempt carries, once its answer named it. */
  sessionId: string | undefined;
  private readonly controller = new AbortController();
  private readonly audio: Promise<void>;
  private readonly ready: Promise<void>;
  private gotAudio!: () => void;
  private gotReady!: () => void;
  /** Whether the link closed from the far end (not by {@link abort}); `farEnd` wakes who waits for it. */
  private farEndGone = false;
  private readonly farEnd: Waiters;
  private aborted = false;

  /** `microphone`: undefined for a text-only call. */
  constructor(private readonly setup: AttemptSetup, microphone: MediaStream | undefined, private readonly report: AttemptReport) {
    this.farEnd = new Waiters(setup.clock);
    this.audio = new Promise<void>((resolve) => (this.gotAudio = resolve));
    this.ready = new Promise<void>((resolve) => (this.gotReady = resolve));
    const { protocol } = setup;
    this.transport = setup.provider.open({ microphone, channel: protocol.channel, trickle: protocol.patch !== undefined, clock: setup.clock }, {
      message: (text) => this.message(text),
      audio: (stream) => {
        this.gotAudio();
        report.audio(this, stream);
      },
      closed: () => {
        this.farEndGone = true;
        this.farEnd.wake();
        report.closed(this);
      },
      signaling: (mode) => report.signaling(this, mode),
    });
  }

  /**
   * Completes the attempt within `timeoutMs`: offer, signaling through the protocol (continuing
   * `sessionId` when given), answer, then the open channel + remote audio + `session.ready`. On
   * failure the transport is closed and a VoiceSessionError thrown.
   */
  async run(sessionId: string | undefined, timeoutMs: number): Promise<void> {
    const limit = deadline(this.setup.clock, timeoutMs, () => {
      const error = new VoiceSessionError('connection_failed', `Connection not established within ${timeoutMs} ms`);
      timeouts.add(error);
      return error;
    });
    const step = <T>(promise: Promise<T>) => Promise.race([promise, limit.promise]);
    const { protocol } = this.setup;
    const patch = protocol.patch?.bind(protocol);
    const resource = patch && { patch: (fragment: string) => patch(this.sessionId!, fragment, this.request(sessionId)) };
    try {
      await step(this.transport.connect(async (offer) => {
        // A second offer of the same attempt (trickle refused) continues the session the first one named.
        const expected = this.sessionId ?? sessionId;
        let answer;
        try {
          answer = await protocol.signal(offer, this.request(sessionId));
        } catch (err) {
          throw fromApiFailure(err, 'Signaling failed');
        }
        if (expected && answer.sessionId !== expected) {
          throw new VoiceSessionError('signaling_failed', `The service answered for session ${answer.sessionId} instead of continuing ${expected}`);
        }
        this.sessionId = answer.sessionId;
        this.report.answered(this, answer.sessionId);
        return answer;
      }, resource));
      await step(Promise.all([this.audio, this.ready]));
    } catch (err) {
      this.abort();
      if (err instanceof VoiceSessionError) throw err;
      throw new VoiceSessionError('connection_failed', `Connection failed: ${(err as Error)?.message ?? err}`, { cause: err });
    } finally {
      limit.clear();
    }
  }

  /**
   * Validates and sends one command in the session's protocol; a local ValidationError for bad
   * input, `not_connected` without an open channel. Returns how many messages went out (a protocol
   * may have none for a command).
   */
  send(command: Command): number {
    const message = this.setup.codec.encode({ v: PROTOCOL_VERSION, ...command } as ClientEvent);
    if (!this.transport.open) throw new VoiceSessionError('not_connected', 'The data channel is not open');
    if (message === undefined) return 0;
    const texts = typeof message === 'string' ? [message] : message;
    for (const text of texts) this.transport.send(text);
    return texts.length;
  }

  /** An ICE restart on the same connection, when the transport can (undefined: it cannot). */
  restart(): Promise<void> | undefined {
    return this.transport.restart?.();
  }

  /**
   * Says goodbye (`session.end`), gives it time to leave, and the service {@link GOODBYE_CLOSE_MS}
   * to close the link (a protocol without a goodbye message, such as OpenAI's, closes at once).
   * Never throws: a link already gone has nothing left to tell.
   */
  async goodbye(): Promise<void> {
    try {
      if (this.send({ type: 'session.end' }) === 0) return;
      await this.drain(500);
      await this.closedByFarEnd(GOODBYE_CLOSE_MS);
    } catch {
      // The link is already gone.
    }
  }

  /** Waits at most `maxMs` for the far end to close the link; resolves whether it did. */
  closedByFarEnd(maxMs: number): Promise<boolean> {
    return this.farEndGone ? Promise.resolve(true) : this.farEnd.wait(maxMs);
  }

  /** Waits (bounded) until the data channel sent what it queued, so a last event leaves before the link closes. */
  async drain(maxMs: number): Promise<void> {
    const until = this.setup.clock.now() + maxMs;
    while (this.transport.bufferedAmount > 0 && this.setup.clock.now() < until) await sleep(this.setup.clock, 10);
  }

  /** Cancels pending signaling requests and closes the transport (its `closed` is not reported). Idempotent. */
  abort(): void {
    this.aborted = true;
    this.controller.abort();
    this.transport.close();
  }

  private request(sessionId: string | undefined): SignalingRequest {
    const { aiId, api, language, userIdentifier, interruptions, turnTaking } = this.setup.target;
    const id = this.sessionId ?? sessionId;
    return {
      aiId, api, language: language ?? 'ja', signal: this.controller.signal,
      ...(userIdentifier ? { userIdentifier } : {}),
      ...(id ? { sessionId: id } : {}),
      ...(interruptions ? { interruptions } : {}),
      ...(turnTaking ? { turnTaking } : {}),
    };
  }

  private message(text: string): void {
    if (this.aborted) return; // a late message of a dropped attempt must not reach the session's codec
    const events = this.setup.codec.decode(text);
    if (events instanceof VoiceSessionError) {
      this.report.invalid(this, events);
      return;
    }
    for (const event of events) {
      if (event.type === 'session.ready') this.gotReady();
      this.report.event(this, event);
    }
    for (const reply of this.setup.codec.takeReplies?.() ?? []) if (this.transport.open) this.transport.send(reply);
  }
}
