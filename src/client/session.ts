import { EventEmitter } from './emitter.js';
import type { Attempt } from './attempt.js';
import { Carrier, type CarrierReport } from './carrier.js';
import { sessionConfig, type SessionConfig } from './config.js';
import { fromApiFailure, VoiceSessionError } from './errors.js';
import type { Report, SessionEvents, Turn } from './events.js';
import type { EndOptions, VoiceSessionOptions } from './options.js';
import type { DroppedLink, RecoveryReport } from './recovery.js';
import { fetchReport, reportWindow, type SessionReport } from './report.js';
import { SessionId } from './session-id.js';
import { SnapshotCache, type SessionSnapshot } from './snapshot.js';
import type { SourcesEffect, TurnRating } from './sources/api.js';
import { checkTransition, isFinal, isLive, type EndReason, type ReconnectCause, type SessionState, type WarmupStatus } from './state.js';
import { wire, type Conductor, type SessionParts } from './wiring.js';

/**
 * A voice call with a knowledge-base robot: microphone, WebRTC connection, warmup, protocol
 * events, turns, recovery and the report afterwards. One instance is one call; make a new one for
 * the next call.
 *
 * Inside, it is a state machine (the transition table is `TRANSITIONS` in state.ts) whose state
 * lives here only; its collaborators are effects (effects.ts) that report back, and each try at
 * carrying the call is one {@link Attempt}.
 *
 * @example
 * const session = new VoiceSession({ aiId, api: createApiClient({ baseUrl: '/api/voice' }) });
 * session.on('turn', (turn) => console.log(turn.question, '→', turn.answer, turn.firstResponseMs));
 * session.on('error', (error) => console.warn(error.code, error.message)); // every failure, once
 * await session.start().catch(() => undefined); // ...also rejects start(): handled above
 * // ...
 * await session.end(); // never rejects
 * const report = await session.report();
 */
export class VoiceSession extends EventEmitter<SessionEvents> {
  private _state: SessionState = { status: 'idle' };
  private _error: VoiceSessionError | undefined;
  private recovering: AbortController | undefined;
  private reconnectCause: ReconnectCause = 'connection_lost';
  private startPromise: Promise<void> | undefined;
  private endPromise: Promise<void> | undefined;
  /** When start() began (clock time): the report's E12/E13 window is around it. */
  private startedAt = 0;
  private readonly config: SessionConfig;
  /** The collaborators (wiring.ts); their `effects` follow the call's lifecycle (effects.ts). */
  private readonly parts: SessionParts;
  /** The attempt carrying the call (carrier.ts). */
  private readonly carrier: Carrier;
  private readonly snapshot: SnapshotCache;
  private readonly ids = new SessionId();
  /** `Turn.sources` and rate(), with the `sources` option (kb-voice/sources). */
  private readonly sources: SourcesEffect | undefined;
  private readonly onAbort = () => {
    this.endPromise ??= this.finish('immediate', 'aborted');
  };

  constructor(options: VoiceSessionOptions) {
    super();
    this.config = sessionConfig(options);
    this.parts = wire(this.config, this.conductor);
    this.carrier = new Carrier(this.config.setup, () => this.parts.microphone.stream, this.attemptReport);
    this.snapshot = new SnapshotCache(() => ({
      ...this.parts.snapshot(), status: this._state.status, state: this._state, sessionId: this.ids.value, error: this._error,
    }));
    this.sources = options.sources?.(this, options, this.parts.tracker, this.notify);
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    // QA hook (CONTRACT.md, kb-voice-qa): a page under test registers every session it creates.
    (globalThis as { __KB_VOICE_HOOK__?: { register(session: VoiceSession): void } }).__KB_VOICE_HOOK__?.register(this);
  }

  /**
   * Everything a UI shows, frozen; the same object until something observable changed (levels
   * excepted). Pairs with {@link subscribe} for `useSyncExternalStore`.
   */
  getSnapshot(): SessionSnapshot {
    return this.snapshot.get();
  }

  /** Calls `listener` after every observable change (each also has its typed event); returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    return this.snapshot.subscribe(listener);
  }

  /** Current state; listen to `state` for changes. */
  get state(): SessionState {
    return this._state;
  }

  /** Result of the E1 warmup fired by start(). */
  get warmup(): WarmupStatus {
    return this.parts.warmup.status;
  }

  /** Finished turns, in order; kept across reconnections. */
  get turns(): readonly Turn[] {
    return this.parts.tracker.turns;
  }

  get muted(): boolean {
    return this.parts.microphone.muted;
  }

  /** The service's session id, known once signaling answered. */
  get sessionId(): string | undefined {
    return this.ids.value;
  }

  /** Whether the robot's agent was already built when the session became ready (from `session.ready`). */
  get agentReady(): boolean | undefined {
    return this.parts.heard.agentReady;
  }

  /** The assistant's audio, for custom playback or visualisation. */
  get remoteStream(): MediaStream | undefined {
    return this.parts.heard.remote;
  }

  /**
   * Opens the microphone and connects; resolves once the assistant's audio is attached and the service
   * said `session.ready` (the E1 warmup fired alongside, never awaited). Returns the same promise until the
   * call ends; resolves without connecting when end() interrupted it. A failure is reported once: state
   * `failed`, an `error` event and this rejection ({@link VoiceSessionError}); after the call, `session_ended`.
   */
  start(): Promise<void> {
    if (isFinal(this._state)) {
      const error = new VoiceSessionError('session_ended', `This session has ${this._state.status}: create a new VoiceSession for another call`);
      this.notify('error', error);
      return Promise.reject(error);
    }
    this.startPromise ??= this.run();
    return this.startPromise;
  }

  /**
   * Ends the call (state `ending`, then `ended`), closes the connection and releases the
   * microphone; never rejects. Calling it again returns the same promise.
   */
  end(options: EndOptions = {}): Promise<void> {
    this.endPromise ??= this.finish(options.mode ?? 'graceful', 'local');
    return this.endPromise;
  }

  /** Stops sending microphone audio (the track stays open, so unmute() is instant). */
  mute(): void {
    this.parts.microphone.setMuted(true);
  }

  unmute(): void {
    this.parts.microphone.setMuted(false);
  }

  /** Asks a typed question (it replaces an answer under way: `Turn.interruptedBy` `app`). Throws `not_connected` unless connected, a local ValidationError for empty or too long text. */
  sendText(text: string): void {
    this.parts.ask(this.requireConnected(), text);
  }

  /** Stops the assistant's current answer (`Turn.interruptedBy` `app`). */
  interrupt(): void {
    this.parts.cut(this.requireConnected(), 'app');
  }

  /**
   * Push-to-talk (`turnTaking: 'push-to-talk'`): `talk(true)` while the talk button is held opens the
   * microphone (interrupting an answer under way), `talk(false)` closes it and the service answers at
   * once. `talk(true)` throws `not_connected` unless connected (or connecting with the pre-connect
   * buffer, which keeps what is said) and `not_supported` in `auto`; `talk(false)` never throws.
   */
  talk(on: boolean): void {
    const { pushToTalk, tracker, preConnect } = this.parts;
    if (!on) return pushToTalk?.release();
    if (!pushToTalk) throw new VoiceSessionError('not_supported', "talk() needs turnTaking: 'push-to-talk'");
    if (!preConnect.buffering) this.requireConnected();
    pushToTalk.press(tracker.assistantSpeaking);
  }

  /** Switches the microphone to another input device without reconnecting (the sender's track is replaced). */
  async setInputDevice(deviceId: string): Promise<void> {
    if (!this.parts.microphone.stream || !isLive(this._state)) throw new VoiceSessionError('not_connected', 'No call in progress');
    await this.parts.switchMicrophone(deviceId);
  }

  /**
   * Routes the assistant's audio to `deviceId` (`snapshot.devices.outputs`; `''`: the system default) with
   * `setSinkId`, before or during a call. Rejects `not_supported` without `setSinkId`, `device_unavailable` when refused.
   */
  setOutputDevice(deviceId: string): Promise<void> {
    return this.parts.playback.setOutput(deviceId);
  }

  /**
   * Retries playback after the browser blocked it (`playbackBlocked`), from a user gesture: `audio.play()`
   * first (the activation is fresh), then the meters' AudioContext, not awaited (levels read `null` if it
   * never resumes). Settles within 3 s; rejects `playback_blocked` if playback is still refused or late.
   */
  resumePlayback(): Promise<void> {
    const playing = this.parts.playback.resume();
    this.parts.meters?.resume().catch(() => undefined);
    return playing;
  }

  /** Rates turn `turnId`'s answer (E6, `source=widget`), during or after the call; the last call wins. Needs the `sources` option (else `not_supported`). */
  rate(turnId: number, rating: TurnRating): Promise<void> {
    return this.sources?.rate(turnId, rating) ?? Promise.reject(new VoiceSessionError('not_supported', 'No sources option'));
  }

  /**
   * This session's usage (E13), cost (E12) and audio (E14), fetched in parallel, with the turns; E12/E13 for
   * the call's own window (an hour either side of its start). During or after the call (while connecting it
   * waits for the session id). Rejects (no `error` event) `not_connected` before start(), `no_session` when
   * the call ended before the service named it, or the API failure's code.
   */
  async report(): Promise<SessionReport> {
    const sessionId = await this.ids.when(this._state);
    const { options: { api, aiId }, clock } = this.config;
    return fetchReport(api, aiId, sessionId, this.parts.tracker.turns, reportWindow(this.startedAt, clock.now()), this.parts.quality.report(), this.parts.preConnect.report())
      .catch((err: unknown) => Promise.reject(fromApiFailure(err, 'Report failed', 'report_failed')));
  }

  // ---------------------------------------------------------------- lifecycle

  private async run(): Promise<void> {
    const { options, clock, setup } = this.config;
    if (options.signal?.aborted) {
      this.onAbort();
      return this.endPromise;
    }
    this.startedAt = clock.now();
    this.go({ status: 'connecting', attempt: 1 });
    const stillConnecting = () => this._state.status === 'connecting';
    try {
      setup.provider.preflight?.();
      if (!(await this.parts.openMicrophone(() => !stillConnecting()))) return;
      this.parts.network.start();
      const attempt = await this.carrier.first(this.config.connectTimeoutMs, this.parts.resumeStore, () => stillConnecting() && !this.ids.value);
      if (stillConnecting()) this.connected(attempt);
    } catch (err) {
      if (!stillConnecting()) return;
      const error = err instanceof VoiceSessionError ? err : new VoiceSessionError('connection_failed', 'Could not connect', { cause: err });
      this.close({ status: 'failed', error });
      this.notify('error', error);
      throw error;
    }
  }

  private connected(link: DroppedLink): void {
    const attempt = this.carrier.current;
    if (link !== attempt || !attempt) return;
    // Effects first: listeners of `connected` already see the warmup under way.
    for (const effect of this.parts.effects) effect.connected?.(attempt);
    this.go({ status: 'connected', sessionId: this.ids.value! });
  }

  /** `attempt` died (closed, ICE failed, heartbeat) or its network went away or changed: recover if it carried the call. */
  private lost(attempt: Attempt | undefined, cause: ReconnectCause = 'connection_lost'): void {
    if (!attempt || attempt !== this.carrier.current) return;
    this.parts.ending.speechOver();
    if (this._state.status !== 'connected') return;
    this.reconnectCause = cause;
    for (const effect of this.parts.effects) effect.lost?.();
    this.recovering = new AbortController();
    void this.carrier.follow(this.parts.recovery.run(this._state.sessionId, attempt, this.recovering.signal));
  }

  private async finish(mode: 'graceful' | 'immediate', reason: EndReason): Promise<void> {
    const state = this._state;
    if (isFinal(state)) return;
    const sessionId = this.ids.value;
    const named = sessionId ? { sessionId } : {};
    if (state.status !== 'idle') {
      this.go({ status: 'ending', reason, ...named });
      this.recovering?.abort();
      // The user is done: no new turn may start while the last answer finishes, and nothing but
      // the goodbye is sent (Ending: the service closes the link first).
      this.parts.silence();
      const link = this.carrier.current;
      if (state.status === 'connected' && link) await this.parts.ending.heardOut(mode, this.parts.tracker.assistantSpeaking).then(() => link.goodbye());
    }
    this.close({ status: 'ended', reason, ...named });
  }

  /** The call is over: every effect releases what it holds, then the final state. */
  private close(final: Extract<SessionState, { status: 'ended' | 'failed' }>): void {
    this.recovering?.abort();
    this.carrier.drop();
    for (const effect of this.parts.effects) effect.close?.();
    this.config.options.signal?.removeEventListener('abort', this.onAbort);
    this.go(final);
    this.ids.settle(this._state);
  }

  // ---------------------------------------------------------------- reports

  /** What the current attempt reports (carrier.ts): the session keeps its own part, the collaborators get the rest. */
  private readonly attemptReport: CarrierReport = {
    answered: (id) => void (this.ids.name(id) && this.parts.warmup.soon(id)),
    event: (event) => this.parts.serverEvent(event),
    invalid: (error) => this.notify('error', error),
    audio: (stream) => this.parts.audio(stream),
    closed: (attempt) => this.lost(attempt),
    signaling: (mode) => this.parts.signaling(mode),
  };

  /** What Recovery reports: the state follows. */
  private readonly recoveryReport: RecoveryReport = {
    trying: (how, attempt) => this.go({ status: 'reconnecting', sessionId: this.ids.value!, how, attempt, cause: this.reconnectCause }),
    restored: (link) => this.connected(link),
    gaveUp: (error) => {
      this.close({ status: 'ended', sessionId: this.ids.value!, reason: 'connection_lost' });
      this.notify('error', error);
    },
  };

  /** An effect reported one of the session's events: the snapshot follows, then listeners and subscribers hear it. */
  private readonly notify: Report = (event, ...args) => {
    if (event === 'error') this._error = args[0] as VoiceSessionError;
    this.publish(event, args);
  };

  /** All the collaborators get of the session (wiring.ts). */
  private readonly conductor: Conductor = {
    report: this.notify,
    level: (levels) => this.emit('level', levels),
    recovery: this.recoveryReport,
    state: () => this._state,
    current: () => this.carrier.current,
    lost: (cause) => this.lost(this.carrier.current, cause),
    cut: (by) => this.parts.cut(this.requireConnected(), by),
    resuming: () => this.carrier.resuming && this._state.status === 'connecting',
  };

  /** Rebuilds the snapshot, then emits `event` and tells subscribers. */
  private publish<K extends keyof SessionEvents>(event: K, args: Parameters<SessionEvents[K]>): void {
    this.snapshot.invalidate();
    (this.emit as (event: K, ...args: unknown[]) => boolean)(event, ...args);
    this.snapshot.changed();
  }

  /** The one way the state changes: through the transition table (an illegal transition throws in development). */
  private go(next: SessionState): void {
    const previous = this._state;
    if (!checkTransition(previous.status, next.status)) return;
    this._state = next;
    this.publish('state', [next, previous]);
  }

  private requireConnected(): Attempt {
    const attempt = this.carrier.current;
    if (this._state.status !== 'connected' || !attempt) throw new VoiceSessionError('not_connected', `Not connected (state: ${this._state.status})`);
    return attempt;
  }
}
