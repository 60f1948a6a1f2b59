import * as z from 'zod/mini';
import type { Transport, TransportEvents, TransportProvider } from '../client/transport.js';
import type { RealtimeSessionIn } from '../schemas/realtime.js';
import { PROTOCOL_VERSION, ServerEvent } from '../schemas/realtime-events.js';
import { fakeStream } from './fakes.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A server event as scripted: `v` is added. */
export type ScriptedEvent = DistributiveOmit<ServerEvent, 'v'>;

/** One connection the service accepted. */
export interface ScriptedCall {
  readonly sessionId: string;
  /** The v1 signaling request, if the call was signaled through `api` (another protocol signals itself). */
  readonly offer: RealtimeSessionIn | undefined;
  /** False once dropped or closed. */
  readonly open: boolean;
  /** Who closed the link: the service (`drop()`, or its answer to `session.end`) or the client. */
  readonly closedBy: 'service' | 'client' | undefined;
}

type OpenCall = { -readonly [K in keyof ScriptedCall]: ScriptedCall[K] };

/** What the fake transport reports to the service it belongs to. */
export interface ScriptedTransportOptions {
  /** The signaling request of the offer just answered (the fake API's last one). */
  lastOffer(): RealtimeSessionIn | undefined;
  /** A call connected (its audio is attached): the service may send `session.ready`. */
  connected(call: ScriptedCall): void;
  /** The client sent one data-channel message on a call whose path works. */
  message(text: string): void;
}

/**
 * Validates and serializes one scripted server event with kb-voice/schemas' `ServerEvent`, the
 * schema the emulator validates its own events with: a script that sends an event no service
 * could send fails at once, where it is written, instead of testing the client against a fiction.
 */
export function encodeScriptedEvent(event: ScriptedEvent): string {
  const full = { v: PROTOCOL_VERSION, ...event };
  const parsed = ServerEvent.safeParse(full);
  if (!parsed.success) throw new Error(`ScriptedService: invalid server event ${String((event as { type?: unknown }).type)}: ${z.prettifyError(parsed.error)}`);
  return JSON.stringify(full);
}

/**
 * The scripted service's fake transport (`TransportProvider`): each attempt's link is a pair of
 * function calls, no WebRTC. It accepts the offer through the session's protocol, hands the
 * session a fake audio stream, delivers what the service sends synchronously, and can drop or
 * silently cut the current call.
 */
export class ScriptedTransport implements TransportProvider {
  readonly calls: ScriptedCall[] = [];
  /** Every data-channel message received as is (pings included; another protocol's messages too). */
  readonly received: string[] = [];
  private current: { call: OpenCall; events: TransportEvents } | undefined;
  /** The call whose path cut() killed silently. */
  private silenced: ScriptedCall | undefined;

  constructor(private readonly options: ScriptedTransportOptions) {}

  /** The current call, if one is open. */
  get call(): ScriptedCall | undefined {
    return this.current?.call.open ? this.current.call : undefined;
  }

  /** Sends one server event on the current call, validated first ({@link encodeScriptedEvent}). */
  send(event: ScriptedEvent): void {
    this.sendRaw(encodeScriptedEvent(event));
  }

  /** Sends one raw data-channel message (e.g. malformed JSON), unvalidated. */
  sendRaw(text: string): void {
    this.requireCurrent().events.message(text);
  }

  /** The path of the current call dies without a word: what the client sends no longer arrives. */
  cut(): void {
    this.silenced = this.requireCurrent().call;
  }

  /** The current call drops (the far side vanished). */
  drop(reason = 'scripted drop'): void {
    this.hangUp(this.requireCurrent(), new Error(reason));
  }

  /** The service closes `call` if it is still the open current one (its answer to `session.end`). */
  hangUpLater(): void {
    const current = this.current;
    if (!current?.call.open) return;
    queueMicrotask(() => current.call.open && this.hangUp(current, new Error('closed after session.end')));
  }

  requireCall(): ScriptedCall {
    return this.requireCurrent().call;
  }

  open(_options: unknown, events: TransportEvents): Transport {
    let open = false;
    let call: OpenCall | undefined;
    let closed = false;
    const fail = () => new Error('scripted transport closed');
    return {
      connect: async (exchange) => {
        if (closed) throw fail();
        const answer = await exchange({ sdp: 'v=0 scripted offer' });
        if (closed) throw fail();
        call = { sessionId: answer.sessionId, offer: this.options.lastOffer(), open: true, closedBy: undefined };
        this.calls.push(call);
        this.current = { call, events };
        open = true;
        events.audio(fakeStream());
        this.options.connected(call);
      },
      get open() {
        return open && !closed && (call?.open ?? false);
      },
      bufferedAmount: 0,
      send: (text) => {
        if (!open || closed || !call?.open) throw new Error('data channel is not open');
        if (call === this.silenced) return;
        this.received.push(text);
        this.options.message(text);
      },
      replaceTrack: () => undefined,
      close: () => {
        closed = true;
        if (!call) return;
        if (call.open) call.closedBy ??= 'client';
        call.open = false;
      },
    };
  }

  private hangUp(current: { call: OpenCall; events: TransportEvents }, reason: Error): void {
    current.call.open = false;
    current.call.closedBy ??= 'service';
    current.events.closed(reason);
  }

  private requireCurrent() {
    if (!this.current?.call.open) throw new Error('ScriptedService: no open call (start the session first)');
    return this.current;
  }
}
