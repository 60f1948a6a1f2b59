import { EventEmitter } from 'eventemitter3';
import { PROTOCOL_VERSION, type ServerEvent } from '../schemas/realtime-events.js';
import type { Connection } from './connector.js';
import { Ending } from './ending.js';
import { fromApiFailure, VoiceSessionError } from './errors.js';
import type { SessionEvents, Turn } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { LevelMonitor, webAudioMeters } from './levels.js';
import { Link } from './link.js';
import { Microphone } from './microphone.js';
import type { EndOptions, VoiceSessionOptions } from './options.js';
import { AudioPlayback } from './playback.js';
import { Recovery } from './recovery.js';
import { fetchReport, type SessionReport } from './report.js';
import { SessionId } from './session-id.js';
import { SnapshotCache, type SessionSnapshot } from './snapshot.js';
import { canTransition, isFinal, type EndReason, type SessionState, type WarmupStatus } from './state.js';
import { TurnTracker } from './turns.js';
import { Warmup } from './warmup.js';

/**
 * A voice call with a knowledge-base robot: microphone, WebRTC connection, warmup, protocol
 * events, turns, recovery and the report afterwards. One instance is one call; make a new one for
 * the next call.
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
  private _agentReady: boolean | undefined;
  private _error: VoiceSessionError | undefined;
  private readonly options: VoiceSessionOptions;
  private readonly snapshot: SnapshotCache;
  private readonly subscribers = new Set<() => void>();
  private readonly ids = new SessionId();
  private readonly warmupRequest: Warmup;
  private readonly microphone: Microphone;
  private readonly link: Link;
  private readonly recovery: Recovery;
  private readonly ending: Ending;
  private readonly tracker: TurnTracker;
  private readonly heartbeat: Heartbeat;
  private readonly levels: LevelMonitor;
  private readonly meters: ReturnType<typeof webAudioMeters>;
  private readonly playback: AudioPlayback;
  private remote: MediaStream | undefined;
  private startPromise: Promise<void> | undefined;
  private endPromise: Promise<void> | undefined;
  /** Set as soon as end() (or abort) begins: every pending step then stands down. */
  private closing = false;
  private readonly onAbort = () => {
    this.endPromise ??= this.finish('immediate', 'aborted');
  };

  constructor(options: VoiceSessionOptions) {
    super();
    this.options = options;
    this.playback = new AudioPlayback(options.audioElement, {
      blocked: (error) => {
        this.emit('playbackBlocked');
        this.emit('error', error);
      },
      resumed: () => this.emit('playbackResumed'),
    });
    this.warmupRequest = new Warmup(this, options);
    this.microphone = new Microphone(this, options.microphone);
    this.tracker = new TurnTracker(this, options.maxTranscriptChars !== undefined ? { maxTranscriptChars: options.maxTranscriptChars } : {});
    this.link = new Link(options, {
      answered: (id) => {
        if (this.ids.name(id)) this.warmupRequest.soon(id);
      },
      event: (conn, event) => this.onEvent(conn, event),
      invalid: (error) => this.emit('error', error),
      audio: (conn, stream) => this.onAudio(conn, stream),
      closed: () => this.lost(),
      signaling: (mode) => this.emit('iceSignaling', mode),
    });
    this.recovery = new Recovery(this.link, {
      closing: () => this.closing,
      setState: (state) => this.setState(state),
      connect: (sessionId, timeoutMs) => this.connect(sessionId, timeoutMs),
      connected: (conn) => this.connected(conn),
      gaveUp: (error) => {
        this.closing = true;
        this.teardown();
        this.setState({ status: 'ended', sessionId: this.ids.value!, reason: 'connection_lost' });
        this.emit('error', error);
      },
    }, options, this.link.pings);
    this.ending = new Ending(this.link, this.microphone, () => this.tracker.assistantSpeaking, options);
    this.snapshot = new SnapshotCache(() => ({
      status: this._state.status, state: this._state, warmup: this.warmupRequest.status, muted: this.microphone.muted, sessionId: this.ids.value,
      turnsSource: this.tracker.turns, live: this.tracker.live, userSpeaking: this.tracker.userSpeaking,
      assistantSpeaking: this.tracker.assistantSpeaking, playbackBlocked: this.playback.blocked, error: this._error,
      iceSignaling: this.link.iceSignaling,
    }));
    this.heartbeat = new Heartbeat({
      // A dialect without ping/pong relies on the transport noticing a dead link.
      intervalMs: this.link.pings ? options.heartbeatIntervalMs ?? 1000 : 0,
      send: (t) => this.link.send({ v: PROTOCOL_VERSION, type: 'ping', t }),
      onDead: () => this.lost(),
    });
    this.meters = options.levelMeter ? undefined : webAudioMeters();
    this.levels = new LevelMonitor(options.levelMeter ?? this.meters?.factory, (levels) => this.emit('level', levels));
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
    const entry = () => listener();
    this.subscribers.add(entry);
    return () => {
      this.subscribers.delete(entry);
    };
  }

  /** Every event but `level` changes the snapshot: it is rebuilt before listeners run, subscribers hear it after. */
  override emit<T extends EventEmitter.EventNames<SessionEvents>>(event: T, ...args: EventEmitter.EventArgs<SessionEvents, T>): boolean {
    if (event === 'level') return super.emit(event, ...args);
    if (event === 'error') this._error = args[0] as VoiceSessionError;
    this.snapshot.invalidate();
    const handled = super.emit(event, ...args);
    for (const listener of [...this.subscribers]) listener();
    return handled;
  }

  /** Current state; listen to `state` for changes. */
  get state(): SessionState {
    return this._state;
  }

  /** Result of the E1 warmup fired by start(). */
  get warmup(): WarmupStatus {
    return this.warmupRequest.status;
  }

  /** Finished turns, in order; kept across reconnections. */
  get turns(): readonly Turn[] {
    return this.tracker.turns;
  }

  get muted(): boolean {
    return this.microphone.muted;
  }

  /** The service's session id, known once signaling answered. */
  get sessionId(): string | undefined {
    return this.ids.value;
  }

  /** Whether the robot's agent was already built when the session became ready (from `session.ready`). */
  get agentReady(): boolean | undefined {
    return this._agentReady;
  }

  /** The assistant's audio, for custom playback or visualisation. */
  get remoteStream(): MediaStream | undefined {
    return this.remote;
  }

  /**
   * Opens the microphone and connects; resolves once the assistant's audio is attached and the
   * service said `session.ready`. The E1 warmup is fired alongside and never awaited. While the
   * call is connecting, connected or reconnecting it returns the same promise; it resolves without
   * connecting when end() interrupted it. A failure is reported once as state `failed`, an `error`
   * event and this promise's rejection (a {@link VoiceSessionError}). On a session that already
   * ended or failed it rejects with `session_ended` (and emits it): make a new VoiceSession.
   */
  start(): Promise<void> {
    if (isFinal(this._state)) {
      const error = new VoiceSessionError('session_ended', `This session has ${this._state.status}: create a new VoiceSession for another call`);
      this.emit('error', error);
      return Promise.reject(error);
    }
    this.startPromise ??= this.run();
    return this.startPromise;
  }

  /** Ends the call, closes the connection and releases the microphone; never rejects. Calling it again returns the same promise. */
  end(options: EndOptions = {}): Promise<void> {
    this.endPromise ??= this.finish(options.mode ?? 'graceful', 'local');
    return this.endPromise;
  }

  /** Stops sending microphone audio (the track stays open, so unmute() is instant). */
  mute(): void {
    this.microphone.setMuted(true);
  }

  unmute(): void {
    this.microphone.setMuted(false);
  }

  /** Asks a typed question. Throws `not_connected` unless connected, a local ValidationError for empty or too long text. */
  sendText(text: string): void {
    this.requireConnected();
    this.link.send({ v: PROTOCOL_VERSION, type: 'input.text', text });
  }

  /** Stops the assistant's current answer. */
  interrupt(): void {
    this.requireConnected();
    this.link.send({ v: PROTOCOL_VERSION, type: 'response.interrupt' });
  }

  /** Switches the microphone to another input device without reconnecting (the sender's track is replaced). */
  async setInputDevice(deviceId: string): Promise<void> {
    if (!this.microphone.stream || isFinal(this._state) || this.closing) throw new VoiceSessionError('not_connected', 'No call in progress');
    const stream = await this.microphone.switchTo(deviceId, () => this.closing, (old, track, current) => this.link.current?.transport.replaceTrack(old, track, current));
    this.levels.setInput(stream);
  }

  /**
   * Retries playback after the browser blocked it (`playbackBlocked`); call it from a user gesture
   * such as a click. It calls `audio.play()` first (the gesture's activation is still fresh) and
   * resumes the level meters' AudioContext without waiting for it (some browsers never resume it:
   * levels then read `null`). Settles within 3 s whatever the browser does; rejects with
   * `playback_blocked` if playback is still refused or did not start in time.
   */
  resumePlayback(): Promise<void> {
    const playing = this.playback.resume();
    this.meters?.resume().catch(() => undefined);
    return playing;
  }

  /**
   * This session's usage (E13), cost (E12) and audio (E14), fetched in parallel, with the turns.
   * Works during and after the call; while connecting it waits for the service to name the
   * session. Rejects (no `error` event) with `not_connected` before start(), `no_session` when the
   * call ended or failed before the service named it, or the API failure's precise code.
   */
  async report(): Promise<SessionReport> {
    const sessionId = await this.ids.when(this._state);
    try {
      return await fetchReport(this.options.api, this.options.aiId, sessionId, this.tracker.turns);
    } catch (err) {
      throw fromApiFailure(err, 'Report failed', 'report_failed');
    }
  }

  // ---------------------------------------------------------------- lifecycle

  private async run(): Promise<void> {
    if (this.options.signal?.aborted) {
      this.onAbort();
      return this.endPromise;
    }
    this.setState({ status: 'connecting' });
    try {
      this.link.preflight();
      const mic = await this.microphone.open(() => this.closing);
      if (!mic) return;
      this.levels.setInput(mic);
      const conn = await this.connect(undefined);
      if (this.closing) return;
      this.connected(conn);
    } catch (err) {
      if (this.closing) return;
      const error = err instanceof VoiceSessionError ? err : new VoiceSessionError('connection_failed', 'Could not connect', { cause: err });
      this.teardown();
      this.setState({ status: 'failed', error });
      this.emit('error', error);
      this.ids.settle(this._state);
      throw error;
    }
  }

  /** One attempt; the first answer names the session and fires the E1 warmup (not awaited). */
  private connect(sessionId: string | undefined, timeoutMs = this.options.connectTimeoutMs ?? 15000): Promise<Connection> {
    return this.link.connect(this.microphone.stream!, sessionId, timeoutMs);
  }

  private connected(conn: Connection): void {
    this.warmupRequest.now();
    this.setState({ status: 'connected', sessionId: conn.sessionId! });
    this.heartbeat.start();
    this.levels.start();
  }

  /** The current link died (closed, ICE failed, heartbeat): recover if the call was up. */
  private lost(): void {
    if (!this.link.current) return;
    this.ending.speechOver();
    if (this.closing || this._state.status !== 'connected') return;
    const sessionId = this.ids.value!;
    this.heartbeat.stop();
    this.tracker.connectionLost();
    void this.recovery.run(sessionId);
  }

  private async finish(mode: 'graceful' | 'immediate', reason: EndReason): Promise<void> {
    if (isFinal(this._state)) return;
    this.closing = true;
    if (this._state.status === 'connected' && this.link.current) await this.ending.goodbye(mode);
    this.teardown();
    const sessionId = this.ids.value;
    this.setState({ status: 'ended', reason, ...(sessionId ? { sessionId } : {}) });
    this.ids.settle(this._state);
  }

  private teardown(): void {
    this.warmupRequest.cancel();
    this.heartbeat.stop();
    this.levels.close();
    this.meters?.close();
    this.link.abort();
    this.microphone.stop();
    this.tracker.connectionLost();
    this.ending.speechOver();
    this.playback.release();
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  // ---------------------------------------------------------------- incoming

  private onEvent(conn: Connection, event: ServerEvent): void {
    switch (event.type) {
      case 'session.ready':
        this._agentReady = event.agent_ready;
        this.tracker.ready(event.resumed);
        conn.gotReady();
        return;
      case 'pong':
        this.heartbeat.pong();
        this.recovery.pong();
        return;
      case 'error':
        this.emit('error', new VoiceSessionError('server_error', event.message, { serverCode: event.code }));
        return;
      default:
        this.tracker.handle(event);
        if (event.type === 'output.speech_stopped') this.ending.speechOver();
    }
  }

  private onAudio(conn: Connection, stream: MediaStream): void {
    this.remote = stream;
    this.levels.setOutput(stream);
    this.playback.attach(stream);
    conn.gotAudio();
  }

  // ---------------------------------------------------------------- helpers

  private setState(next: SessionState): void {
    const previous = this._state;
    if (!canTransition(previous.status, next.status)) return;
    this._state = next;
    this.emit('state', next, previous);
  }

  private requireConnected(): void {
    if (this._state.status !== 'connected' || this.closing) throw new VoiceSessionError('not_connected', `Not connected (state: ${this._state.status})`);
  }
}
