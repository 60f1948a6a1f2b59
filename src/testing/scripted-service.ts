import type { Clock } from '../clock.js';
import type { VoiceSessionOptions } from '../client/options.js';
import type { RealtimeSessionIn } from '../schemas/realtime.js';
import type { ClientEvent } from '../schemas/realtime-events.js';
import { answerEvents, questionEvents } from '../schemas/turn-events.js';
import { Expectations, type Interaction } from './expectations.js';
import { FakeAudioElement, fakeStream, type FakeTrack } from './fakes.js';
import { ScriptedApi, type SignalingFailure } from './scripted-api.js';
import { ScriptedTransport, type ScriptedCall, type ScriptedEvent } from './scripted-transport.js';

export type { SignalingFailure } from './scripted-api.js';
export type { ScriptedCall, ScriptedEvent } from './scripted-transport.js';

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
  /** The references stored with each `answer` (E17's `reference_list`, read by `withSources()`); default none. */
  sources?: (question: string) => unknown;
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

/**
 * A scripted voice service for testing apps that use VoiceSession: no WebRTC, no network, no
 * timers of its own. Spread `service.sessionOptions` into `new VoiceSession({ aiId, ...options })`
 * (or the React hook's options), then script what the service does — `ready()`, `userSays()`,
 * `reply()`, `turn()`, `send()`, `error()`, `drop()`, `failSignaling()`, `holdSignaling()` — and
 * assert on your UI and on `sent` (what the client sent, pings excluded), or declare in advance
 * what the client must do, in order, with `expectOffer()`, `expectEvent()` and `expectWarmup()`,
 * then `assertComplete()`. Every scripted event is validated with kb-voice/schemas (as the
 * emulator validates its own: an invalid one throws) and delivered synchronously; the service has no
 * clock: the session's own timers are its heartbeat (off here: `heartbeatIntervalMs: 0`), the
 * reconnection backoff after `drop()` and a graceful end() while the assistant speaks; pass a
 * `FakeClock` as `clock` to drive them.
 *
 * It is three parts, each its own module: the fake API (scripted-api.ts: signaling, warmup), the
 * fake transport (scripted-transport.ts: the links, validation of what is sent) and, here, the
 * script language (ready, userSays, reply, turn, error, drop, cut) with the expectations.
 */
export class ScriptedService {
  /** Client events received, in order (pings excluded). */
  readonly sent: ClientEvent[] = [];
  /** The element the session plays the assistant through; set `audio.blocked = true` to simulate autoplay blocking. */
  readonly audio = new FakeAudioElement();
  /** Microphone tracks handed out (check `enabled` for mute, `readyState` for release). */
  readonly tracks: FakeTrack[] = [];
  /** The fake API (`VoiceSessionApi`) of `sessionOptions`. */
  readonly api: ScriptedApi;
  /** The fake transport (`TransportProvider`) of `sessionOptions`. */
  readonly transport: ScriptedTransport;
  private readonly options: ScriptedServiceOptions;
  private readonly expectations = new Expectations();
  private turnId = 0;
  private microphoneError: unknown;

  constructor(options: ScriptedServiceOptions = {}) {
    this.options = options;
    this.api = new ScriptedApi({
      warmup: options.warmup,
      newSessionId: () => options.sessionId ?? `scripted-session-${this.transport.calls.length + 1}`,
      observe: (interaction) => this.observe(interaction),
    });
    this.transport = new ScriptedTransport({
      lastOffer: () => this.api.offers.at(-1),
      connected: () => {
        if (this.options.autoReady ?? true) this.ready();
      },
      message: (text) => this.receive(text),
    });
  }

  /** Every data-channel message received as is (pings included; another protocol's messages too). */
  get received(): string[] {
    return this.transport.received;
  }

  /** Every signaling request (offer) received. */
  get offers(): RealtimeSessionIn[] {
    return this.api.offers;
  }

  /** Every connection the service accepted, in order. */
  get calls(): ScriptedCall[] {
    return this.transport.calls;
  }

  /** How many E1 warmup requests arrived. */
  get warmupCalls(): number {
    return this.api.warmupCalls;
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

  /** The current call, if one is open. */
  get call(): ScriptedCall | undefined {
    return this.transport.call;
  }

  /** The next signaling requests fail like this, in order (`{ status: 401 }`, `{ status: 429, retryAfterSeconds: 3 }`, `{ network: true }`). */
  failSignaling(...failures: SignalingFailure[]): void {
    this.api.failSignaling(failures);
  }

  /** getUserMedia fails with a DOMException-like error of this name (`NotAllowedError`: denied). */
  failMicrophone(name = 'NotAllowedError'): void {
    this.microphoneError = Object.assign(new Error(`Microphone: ${name}`), { name });
  }

  /** Signaling waits until the returned function is called (to see the `connecting` state). */
  holdSignaling(): () => void {
    return this.api.holdSignaling();
  }

  /** Sends `session.ready` (needed when `autoReady` is false). */
  ready(): void {
    const call = this.transport.requireCall();
    this.send({ type: 'session.ready', session_id: call.sessionId, language: call.offer?.language ?? 'ja', agent_ready: this.options.agentReady ?? true });
  }

  /** Sends one server event on the current call; throws when kb-voice/schemas' `ServerEvent` rejects it. */
  send(event: ScriptedEvent): void {
    this.transport.send(event);
  }

  /** Sends one raw data-channel message (e.g. malformed JSON), unvalidated. */
  sendRaw(text: string): void {
    this.transport.sendRaw(text);
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
  reply(answer: string, options: { question?: string; input?: 'voice' | 'text'; firstResponseMs?: number | null; interrupted?: boolean; sources?: unknown } = {}): void {
    const turnId = this.turnId;
    const messageId = `scripted-message-${this.api.messages.size + 1}`;
    // Stored before turn.completed, as the service does: E17/E18 then answer with `sources` as its reference_list.
    this.api.messages.set(messageId, {
      id: messageId, session_id: this.calls.at(-1)?.sessionId ?? '', question: options.question ?? '', answer,
      reference_list: options.sources ?? [], rating: null, feedback_content: null,
    });
    const events = answerEvents({
      turnId, message_id: messageId, input: options.input ?? 'voice',
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
    this.transport.cut();
  }

  /** The connection drops (the far side vanished): the session starts reconnecting. */
  drop(): void {
    this.transport.drop();
  }

  /** The client sent `text` (already in `received`). */
  private receive(text: string): void {
    let event: ClientEvent;
    try {
      event = JSON.parse(text) as ClientEvent;
    } catch {
      return; // another protocol's message: only in `received`
    }
    if (event.type === 'ping') {
      this.send({ type: 'pong', t: event.t });
      return;
    }
    this.sent.push(event);
    this.observe({ kind: 'event', data: event });
    if (event.type === 'session.end' && (this.options.closesOnEnd ?? true)) this.transport.hangUpLater();
    const answer = this.options.answer;
    if (event.type === 'input.text' && answer) {
      queueMicrotask(() => {
        if (!this.call) return;
        const turnId = ++this.turnId;
        for (const e of questionEvents({ turnId, input: 'text', question: event.text, input_duration_ms: 0 })) this.send(e);
        this.reply(answer(event.text), { question: event.text, input: 'text', sources: this.options.sources?.(event.text) });
      });
    }
  }

  private observe(interaction: Interaction): void {
    this.expectations.observe(interaction);
  }
}
