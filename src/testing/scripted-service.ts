import { ApiError } from '../api/errors.js';
import type { VoiceSessionApi } from '../client/report.js';
import type { Clock } from '../client/clock.js';
import type { VoiceSessionOptions } from '../client/options.js';
import type { Transport, TransportEvents, TransportProvider } from '../client/transport.js';
import type { RealtimeSessionIn } from '../schemas/realtime.js';
import type { ClientEvent, ServerEvent } from '../schemas/realtime-events.js';
import { answerEvents, questionEvents } from '../schemas/turn-events.js';
import { Expectations, type Interaction } from './expectations.js';
import { FakeAudioElement, fakeStream, type FakeTrack } from './fakes.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A server event as scripted: `v` is added. */
export type ScriptedEvent = DistributiveOmit<ServerEvent, 'v'>;

/** How the next signaling request fails. */
export type SignalingFailure =
  | { status: number; detail?: string; retryAfterSeconds?: number }
  | { network: true };

/** Options of {@link ScriptedService}. */
export interface ScriptedServiceOptions {
  /** Session id the first call gets (default `scripted-session-1`, then -2, …). */
  sessionId?: string;
  /** `agent_ready` of `session.ready` (default true). */
  agentReady?: boolean;
  /** Send `session.ready` as soon as the channel opens (default true; false: call `ready()` yourself). */
  autoReady?: boolean;
  /** Answers a typed question (`sendText`) with a complete text turn, on the next microtask. */
  answer?: (question: string) => string;
  /**
   * Close the link when the client sends `session.end`, as the kb-voice service does (default true).
   * false: a service that never hangs up, so the client closes after its bounded wait.
   */
  closesOnEnd?: boolean;
  /** Result of the E1 warmup (default `{ success: true }`). */
  warmup?: 'ok' | 'failed' | 'hang';
  /** The session's clock (e.g. kb-voice/testing's FakeClock), handed over in `sessionOptions`. */
  clock?: Clock;
}

/** One connection the service accepted. */
export interface ScriptedCall {
  readonly sessionId: string;
  /** The v1 signaling request, if the call was signaled through `api` (another dialect signals itself). */
  readonly offer: RealtimeSessionIn | undefined;
  /** False once dropped or closed. */
  readonly open: boolean;
  /** Who closed the link: the service (`drop()`, or its answer to `session.end`) or the client. */
  readonly closedBy: 'service' | 'client' | undefined;
}

/**
 * A scripted voice service for testing apps that use VoiceSession: no WebRTC, no network, no
 * timers of its own. Spread `service.sessionOptions` into `new VoiceSession({ aiId, ...options })`
 * (or the React hook's options), then script what the service does — `ready()`, `userSays()`,
 * `reply()`, `turn()`, `send()`, `error()`, `drop()`, `failSignaling()`, `holdSignaling()` — and
 * assert on your UI and on `sent` (what the client sent, pings excluded), or declare in advance
 * what the client must do, in order, with `expectOffer()`, `expectEvent()` and `expectWarmup()`,
 * then `assertComplete()`. Every scripted event is delivered synchronously and the service has no
 * clock: the session's own timers are its heartbeat (off here: `heartbeatIntervalMs: 0`), the
 * reconnection backoff after `drop()` and a graceful end() while the assistant speaks; pass a
 * `FakeClock` as `clock` to drive them.
 */
export class ScriptedService {
  /** Client events received, in order (pings excluded). */
  readonly sent: ClientEvent[] = [];
  /** Every data-channel message received as is (pings included; another dialect's messages too). */
  readonly received: string[] = [];
  /** Every signaling request (offer) received. */
  readonly offers: RealtimeSessionIn[] = [];
  readonly calls: ScriptedCall[] = [];
  /** The element the session plays the assistant through; set `audio.blocked = true` to simulate autoplay blocking. */
  readonly audio = new FakeAudioElement();
  /** Microphone tracks handed out (check `enabled` for mute, `readyState` for release). */
  readonly tracks: FakeTrack[] = [];
  warmupCalls = 0;
  private readonly options: ScriptedServiceOptions;
  private readonly expectations = new Expectations();
  private failures: SignalingFailure[] = [];
  private hold: Promise<void> | undefined;
  private current: { call: OpenCall; events: TransportEvents } | undefined;
  private turnId = 0;
  /** The call whose path cut() killed silently. */
  private silenced: ScriptedCall | undefined;
  private microphoneError: unknown;

  constructor(options: ScriptedServiceOptions = {}) {
    this.options = options;
  }

  /** Options for `new VoiceSession({ aiId, ...service.sessionOptions })`. */
  get sessionOptions(): Pick<VoiceSessionOptions, 'api' | 'transport' | 'microphone' | 'audioElement' | 'heartbeatIntervalMs' | 'levelMeter' | 'clock'> {
    return {
      api: this.api, transport: this.transport, microphone: this.microphone,
      audioElement: this.audio as unknown as HTMLAudioElement, heartbeatIntervalMs: 0, levelMeter: () => undefined,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
    };
  }

  /**
   * The next thing the client does must be a signaling request (offer) whose body has these fields
   * (`{ session_id: 'scripted-session-1' }` for a reconnection; `session_id: undefined` for a new
   * session). Expectations are checked in the order they were declared; `then` runs when it is met.
   */
  expectOffer(fields: Partial<RealtimeSessionIn> = {}, then?: () => void): this {
    this.expectations.add({ kind: 'offer', fields, ...(then ? { then: () => then() } : {}) });
    return this;
  }

  /**
   * The next thing the client does must be sending this client event (pings are never checked):
   * `expectEvent({ type: 'input.text', text: 'Hi' }, () => service.reply('Hello'))`.
   * `then` gets the event and may script the service's answer.
   */
  expectEvent<T extends ClientEvent['type']>(fields: { type: T } & Partial<Extract<ClientEvent, { type: T }>>, then?: (event: Extract<ClientEvent, { type: T }>) => void): this {
    this.expectations.add({ kind: 'event', fields, ...(then ? { then: (event) => then(event as Extract<ClientEvent, { type: T }>) } : {}) });
    return this;
  }

  /** The next thing the client does must be the E1 warmup request. */
  expectWarmup(then?: () => void): this {
    this.expectations.add({ kind: 'warmup', fields: {}, ...(then ? { then: () => then() } : {}) });
    return this;
  }

  /**
   * Throws (an Error listing them) when an expectation was not met — the client did something
   * else first, or never did it. Only kinds some expectation names are checked (declare no
   * `expectWarmup()` and warmups are not), and nothing after the last expectation.
   */
  assertComplete(): void {
    this.expectations.assertComplete();
  }

  /** The microphone source: a fake stream, or the error set with failMicrophone(). */
  readonly microphone = async (): Promise<MediaStream> => {
    if (this.microphoneError) throw this.microphoneError;
    const stream = fakeStream();
    this.tracks.push(...(stream.getAudioTracks() as unknown as FakeTrack[]));
    return stream;
  };

  readonly transport: TransportProvider = {
    open: (_options, events) => this.openTransport(events),
  };

  readonly api: VoiceSessionApi = {
    realtime: {
      connect: async (_aiId, body) => {
        this.offers.push(body);
        this.observe({ kind: 'offer', data: body });
        if (this.hold) await this.hold;
        const failure = this.failures.shift();
        if (failure) throw signalingError(failure);
        const sessionId = body.session_id ?? this.options.sessionId ?? `scripted-session-${this.calls.length + 1}`;
        return { session_id: sessionId, type: 'answer' as const, sdp: 'v=0 scripted answer' };
      },
      warmup: () => {
        this.warmupCalls++;
        this.observe({ kind: 'warmup', data: {} });
        if (this.options.warmup === 'hang') return new Promise(() => undefined);
        return Promise.resolve({ success: this.options.warmup !== 'failed' });
      },
      usage: async () => ({ bot_id: 'scripted', session_count: 0, sessions: [] }),
      sessionCosts: async () => ({ bot_id: 'scripted', session_count: 0, total_cost: 0, sessions: [] }),
      audio: async (_aiId, query) => ({ session_id: query.session_id, segments: [] }),
    },
  };

  /** The current call, if one is open. */
  get call(): ScriptedCall | undefined {
    return this.current?.call.open ? this.current.call : undefined;
  }

  /** The next signaling requests fail like this, in order (`{ status: 401 }`, `{ status: 429, retryAfterSeconds: 3 }`, `{ network: true }`). */
  failSignaling(...failures: SignalingFailure[]): void {
    this.failures.push(...failures);
  }

  /** getUserMedia fails with a DOMException-like error of this name (`NotAllowedError`: denied). */
  failMicrophone(name = 'NotAllowedError'): void {
    this.microphoneError = Object.assign(new Error(`Microphone: ${name}`), { name });
  }

  /** Signaling waits until the returned function is called (to see the `connecting` state). */
  holdSignaling(): () => void {
    let release!: () => void;
    this.hold = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.hold = undefined;
      release();
    };
  }

  /** Sends `session.ready` (needed when `autoReady` is false). */
  ready(): void {
    const call = this.requireCall();
    this.send({ type: 'session.ready', session_id: call.sessionId, language: call.offer?.language ?? 'ja', agent_ready: this.options.agentReady ?? true });
  }

  /** Sends one server event on the current call. */
  send(event: ScriptedEvent): void {
    this.sendRaw(JSON.stringify({ v: 1, ...event }));
  }

  /** Sends one raw data-channel message (e.g. malformed JSON). */
  sendRaw(text: string): void {
    this.requireCall();
    this.current!.events.message(text);
  }

  /** The user speaks: speech started/stopped and the final user transcript. Returns the turn id. */
  userSays(text: string): number {
    const turnId = ++this.turnId;
    for (const event of questionEvents({ turnId, input: 'voice', question: text, input_duration_ms: 1000 })) this.send(event);
    return turnId;
  }

  /**
   * The assistant answers the current turn, with the service's events in the service's order
   * (kb-voice/schemas `answerEvents`): speech started, one transcript delta per word, speech
   * stopped, final transcript and `turn.completed`. `firstResponseMs: null` models an answer whose
   * audio never played (no speech events, no deltas).
   */
  reply(answer: string, options: { question?: string; input?: 'voice' | 'text'; firstResponseMs?: number | null; interrupted?: boolean } = {}): void {
    const turnId = this.turnId;
    const events = answerEvents({
      turnId, message_id: `scripted-message-${turnId}`, input: options.input ?? 'voice',
      question: options.question ?? '', answer, first_response_ms: options.firstResponseMs === undefined ? 400 : options.firstResponseMs, agent_build_ms: 0,
      input_duration_ms: options.input === 'text' ? 0 : 1000, output_duration_ms: 1000, interrupted: options.interrupted ?? false,
    });
    for (const event of events) this.send(event);
  }

  /** A whole voice turn: userSays(question) then reply(answer). */
  turn(question: string, answer: string, options: { firstResponseMs?: number | null; interrupted?: boolean } = {}): void {
    this.userSays(question);
    this.reply(answer, { ...options, question });
  }

  /** The service reports an error event (`server_error` on the client). */
  error(code: string, message: string): void {
    this.send({ type: 'error', code, message });
  }

  /**
   * The network path dies without a word: the connection still looks open, but nothing the client
   * sends arrives and no pong comes back, so the session's heartbeat must notice (pass a clock and
   * keep `heartbeatIntervalMs` on). The next connection works again.
   */
  cut(): void {
    this.silenced = this.requireCurrent().call;
  }

  /** The connection drops (the far side vanished): the session starts reconnecting. */
  drop(): void {
    this.hangUp(this.requireCurrent(), new Error('scripted drop'));
  }

  private hangUp(current: { call: OpenCall; events: TransportEvents }, reason: Error): void {
    current.call.open = false;
    current.call.closedBy ??= 'service';
    current.events.closed(reason);
  }

  private openTransport(events: TransportEvents): Transport {
    let open = false;
    let call: OpenCall | undefined;
    let closed = false;
    const fail = () => new Error('scripted transport closed');
    return {
      connect: async (exchange) => {
        if (closed) throw fail();
        const answer = await exchange({ sdp: 'v=0 scripted offer' });
        if (closed) throw fail();
        call = { sessionId: answer.sessionId, offer: this.offers.at(-1), open: true, closedBy: undefined };
        this.calls.push(call);
        this.current = { call, events };
        open = true;
        events.audio(fakeStream());
        if (this.options.autoReady ?? true) this.ready();
      },
      get open() {
        return open && !closed && (call?.open ?? false);
      },
      bufferedAmount: 0,
      send: (text) => {
        if (!open || closed || !call?.open) throw new Error('data channel is not open');
        if (call !== this.silenced) this.receive(text);
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

  private receive(text: string): void {
    this.received.push(text);
    let event: ClientEvent;
    try {
      event = JSON.parse(text) as ClientEvent;
    } catch {
      return; // another dialect's message: only in `received`
    }
    if (event.type === 'ping') {
      this.send({ type: 'pong', t: event.t });
      return;
    }
    this.sent.push(event);
    this.observe({ kind: 'event', data: event });
    const current = this.current;
    if (event.type === 'session.end' && (this.options.closesOnEnd ?? true) && current?.call.open) {
      queueMicrotask(() => current.call.open && this.hangUp(current, new Error('closed after session.end')));
    }
    const answer = this.options.answer;
    if (event.type === 'input.text' && answer) {
      queueMicrotask(() => {
        if (!this.call) return;
        const turnId = ++this.turnId;
        for (const e of questionEvents({ turnId, input: 'text', question: event.text, input_duration_ms: 0 })) this.send(e);
        this.reply(answer(event.text), { question: event.text, input: 'text' });
      });
    }
  }

  private observe(interaction: Interaction): void {
    this.expectations.observe(interaction);
  }

  private requireCurrent() {
    if (!this.current?.call.open) throw new Error('ScriptedService: no open call (start the session first)');
    return this.current;
  }

  private requireCall(): ScriptedCall {
    return this.requireCurrent().call;
  }
}

type OpenCall = { -readonly [K in keyof ScriptedCall]: ScriptedCall[K] };

function signalingError(failure: SignalingFailure): ApiError {
  if ('network' in failure) return new ApiError('network_error', 'Signaling could not reach the server (scripted)');
  const detail = failure.detail ?? `scripted ${failure.status}`;
  return new ApiError('http_error', `Signaling failed with ${failure.status}: ${detail}`, { status: failure.status, body: { detail }, retryAfterMs: failure.retryAfterSeconds !== undefined ? failure.retryAfterSeconds * 1000 : undefined });
}
