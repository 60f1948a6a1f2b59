import { EventEmitter } from 'eventemitter3';
import { PROTOCOL_VERSION, type ClientEvent, type ServerEvent } from '../schemas/realtime-events.js';
import { negotiate, openConnection, retry, sleep, type Connection } from './connector.js';
import { fromApiFailure, VoiceSessionError } from './errors.js';
import type { SessionEvents, Turn } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { LevelMonitor, webAudioMeters } from './levels.js';
import { openMicrophone, stopStream } from './media.js';
import type { EndOptions, VoiceSessionOptions } from './options.js';
import { simplePeerTransport } from './peer.js';
import { AudioPlayback } from './playback.js';
import { v1Protocol } from './protocol.js';
import { fetchReport, type SessionReport } from './report.js';
import { SnapshotCache, type SessionSnapshot } from './snapshot.js';
import { canTransition, isFinal, type EndReason, type SessionState, type WarmupStatus } from './state.js';
import type { Dialect, DialectCodec, IceSignaling, TransportProvider } from './transport.js';
import { TurnTracker } from './turns.js';

/** How long the link may take to carry a ping and its pong after an ICE restart before a new offer is made. */
const RESTART_PROBE_MS = 3000;

/** Longest wait between the signaling answer and the E1 warmup when the connection is slow. */
const WARMUP_DEFER_MS = 250;

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
  private _warmup: WarmupStatus = 'idle';
  private _muted = false;
  private _sessionId: string | undefined;
  private _agentReady: boolean | undefined;
  private _error: VoiceSessionError | undefined;
  private _iceSignaling: IceSignaling | undefined;
  private restartedAt = 0;
  /** Pending deferred E1 warmup (see fireWarmupSoon). */
  private warmupTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly options: VoiceSessionOptions;
  private readonly provider: TransportProvider;
  private readonly dialect: Dialect;
  private readonly codec: DialectCodec;
  private readonly snapshot: SnapshotCache;
  private readonly subscribers = new Set<() => void>();
  private sessionIdWaiters: Array<{ resolve(id: string): void; reject(error: VoiceSessionError): void }> = [];
  private readonly tracker: TurnTracker;
  private readonly heartbeat: Heartbeat;
  private readonly levels: LevelMonitor;
  private readonly meters: ReturnType<typeof webAudioMeters>;
  private mic: MediaStream | undefined;
  private conn: Connection | undefined;
  private readonly playback: AudioPlayback;
  private remote: MediaStream | undefined;
  private startPromise: Promise<void> | undefined;
  private endPromise: Promise<void> | undefined;
  /** Set as soon as end() (or abort) begins: every pending step then stands down. */
  private closing = false;
  private readonly speechWaiters = new Set<() => void>();
  private readonly pongWaiters = new Set<() => void>();
  private readonly onAbort = () => {
    this.endPromise ??= this.finish('immediate', 'aborted');
  };

  constructor(options: VoiceSessionOptions) {
    super();
    this.options = options;
    this.provider = options.transport ?? simplePeerTransport({ ...(options.iceServers ? { iceServers: options.iceServers } : {}), ...(options.wrtc ? { wrtc: options.wrtc } : {}) });
    this.dialect = options.protocol ?? v1Protocol;
    this.codec = this.dialect.codec();
    this.playback = new AudioPlayback(options.audioElement, {
      blocked: (error) => {
        this.emit('playbackBlocked');
        this.emit('error', error);
      },
      resumed: () => this.emit('playbackResumed'),
    });
    this.tracker = new TurnTracker(this, options.maxTranscriptChars !== undefined ? { maxTranscriptChars: options.maxTranscriptChars } : {});
    this.snapshot = new SnapshotCache(() => ({
      status: this._state.status, state: this._state, warmup: this._warmup, muted: this._muted, sessionId: this._sessionId,
      turnsSource: this.tracker.turns, live: this.tracker.live, userSpeaking: this.tracker.userSpeaking,
      assistantSpeaking: this.tracker.assistantSpeaking, playbackBlocked: this.playback.blocked, error: this._error,
      iceSignaling: this._iceSignaling,
    }));
    this.heartbeat = new Heartbeat({
      // A dialect without ping/pong relies on the transport noticing a dead link.
      intervalMs: this.dialect.heartbeat === false ? 0 : options.heartbeatIntervalMs ?? 1000,
      send: (t) => this.sendEvent({ v: PROTOCOL_VERSION, type: 'ping', t }),
      onDead: () => this.lost(this.conn),
    });
    this.meters = options.levelMeter ? undefined : webAudioMeters();
    this.levels = new LevelMonitor(options.levelMeter ?? this.meters?.factory, (levels) => this.emit('level', levels));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
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
    return this._warmup;
  }

  /** Finished turns, in order; kept across reconnections. */
  get turns(): readonly Turn[] {
    return this.tracker.turns;
  }

  get muted(): boolean {
    return this._muted;
  }

  /** The service's session id, known once signaling answered. */
  get sessionId(): string | undefined {
    return this._sessionId;
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
    this.setMuted(true);
  }

  unmute(): void {
    this.setMuted(false);
  }

  /** Asks a typed question. Throws `not_connected` unless connected, a local ValidationError for empty or too long text. */
  sendText(text: string): void {
    this.requireConnected();
    this.sendEvent({ v: PROTOCOL_VERSION, type: 'input.text', text });
  }

  /** Stops the assistant's current answer. */
  interrupt(): void {
    this.requireConnected();
    this.sendEvent({ v: PROTOCOL_VERSION, type: 'response.interrupt' });
  }

  /** Switches the microphone to another input device without reconnecting (the sender's track is replaced). */
  async setInputDevice(deviceId: string): Promise<void> {
    const current = this.mic;
    if (!current || isFinal(this._state) || this.closing) throw new VoiceSessionError('not_connected', 'No call in progress');
    const next = await openMicrophone(this.options.microphone, deviceId);
    const track = next.getAudioTracks()[0]!;
    if (this.mic !== current || this.closing) {
      stopStream(next);
      throw new VoiceSessionError('not_connected', 'The call ended while the device was switching');
    }
    track.enabled = !this._muted;
    const old = current.getAudioTracks()[0];
    try {
      if (old && this.conn) this.conn.transport.replaceTrack(old, track, current);
    } catch (err) {
      stopStream(next);
      throw new VoiceSessionError('microphone_unavailable', 'Could not switch the input device', { cause: err });
    }
    if (old) {
      current.removeTrack(old);
      old.stop();
    }
    // The stream object is kept so that a reconnection sends the new track too.
    current.addTrack(track);
    this.levels.setInput(current);
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
    const sessionId = await this.whenSessionId();
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
      this.provider.preflight?.();
      const mic = await openMicrophone(this.options.microphone);
      if (this.closing) {
        stopStream(mic);
        return;
      }
      this.mic = mic;
      this.applyMute();
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
      this.settleSessionIdWaiters();
      throw error;
    }
  }

  /** One attempt; the first answer names the session and fires the E1 warmup (not awaited). */
  private async connect(sessionId: string | undefined, timeoutMs = this.options.connectTimeoutMs ?? 15000): Promise<Connection> {
    const conn = (this.conn = openConnection(this.mic!, this.provider, this.dialect, {
      message: (c, text) => this.onMessage(c, text),
      audio: (c, stream) => this.onAudio(c, stream),
      closed: (c) => this.lost(c),
      signaling: (c, mode) => {
        if (c !== this.conn || mode === this._iceSignaling) return;
        this._iceSignaling = mode;
        this.emit('iceSignaling', mode);
      },
    }));
    try {
      await negotiate(conn, this.dialect, this.options, sessionId, timeoutMs, (id) => {
        if (!this._sessionId) {
          this._sessionId = id;
          for (const waiter of this.sessionIdWaiters.splice(0)) waiter.resolve(id);
          this.fireWarmupSoon(id);
        }
      });
      return conn;
    } catch (err) {
      if (this.conn === conn) this.conn = undefined;
      throw err;
    }
  }

  private connected(conn: Connection): void {
    this.fireWarmupNow();
    this.setState({ status: 'connected', sessionId: conn.sessionId! });
    this.heartbeat.start();
    this.levels.start();
  }

  /** The current link died (closed, ICE failed, heartbeat): recover if the call was up. */
  private lost(conn: Connection | undefined): void {
    if (!conn || conn !== this.conn) return;
    this.wakeSpeechWaiters();
    if (this.closing || this._state.status !== 'connected') return;
    void this.recover();
  }

  /**
   * First an ICE restart on the same connection (when the transport can), then new offers for the
   * same session until one connects or `reconnectTimeoutMs` is spent.
   */
  private async recover(): Promise<void> {
    const sessionId = this._sessionId!;
    const timeoutMs = this.options.reconnectTimeoutMs ?? 15000;
    this.heartbeat.stop();
    this.tracker.connectionLost();
    const conn = this.conn;
    let restarted = 0;
    // A link that dies again soon after a restart (the far side, not the path, is the problem) gets new offers.
    const restart = Date.now() - this.restartedAt > timeoutMs ? conn?.transport.restart?.() : undefined;
    if (restart && conn) {
      restarted = 1;
      this.restartedAt = Date.now();
      this.setState({ status: 'reconnecting', sessionId, attempt: 1 });
      const ok = await restart.then(() => this.probe(RESTART_PROBE_MS)).then(() => true, () => false);
      if (this.closing || conn !== this.conn) return;
      if (ok) {
        this.connected(conn);
        return;
      }
    }
    this.conn?.transport.close();
    this.conn = undefined;
    try {
      await retry(timeoutMs, () => this.closing, async (n, left) => {
        this.setState({ status: 'reconnecting', sessionId, attempt: n + restarted });
        const conn = await this.connect(sessionId, Math.min(left, this.options.connectTimeoutMs ?? 15000));
        if (!this.closing) this.connected(conn);
      });
    } catch (cause) {
      if (this.closing) return;
      const error = new VoiceSessionError('connection_lost', `The connection was lost and not restored within ${timeoutMs} ms`, { cause });
      this.closing = true;
      this.teardown();
      this.setState({ status: 'ended', sessionId, reason: 'connection_lost' });
      this.emit('error', error);
    }
  }

  private async finish(mode: 'graceful' | 'immediate', reason: EndReason): Promise<void> {
    if (isFinal(this._state)) return;
    this.closing = true;
    if (this._state.status === 'connected' && this.conn) {
      // The user is done: no new turn may start while the last answer finishes.
      for (const track of this.mic?.getAudioTracks() ?? []) track.enabled = false;
      if (mode === 'graceful' && this.tracker.assistantSpeaking) {
        await this.assistantDone(this.options.gracefulEndTimeoutMs ?? 10000);
        await sleep(150); // the jitter buffer still holds the last frames
      }
      try {
        this.sendEvent({ v: PROTOCOL_VERSION, type: 'session.end' });
        await this.drain(500);
      } catch {
        // The link is already gone: nothing left to tell the service.
      }
    }
    this.teardown();
    const sessionId = this._sessionId;
    this.setState({ status: 'ended', reason, ...(sessionId ? { sessionId } : {}) });
    this.settleSessionIdWaiters();
  }

  private teardown(): void {
    clearTimeout(this.warmupTimer);
    this.warmupTimer = undefined;
    this.heartbeat.stop();
    this.levels.close();
    this.meters?.close();
    this.conn?.abort.abort();
    this.conn?.transport.close();
    this.conn = undefined;
    stopStream(this.mic);
    this.tracker.connectionLost();
    this.wakeSpeechWaiters();
    this.playback.release();
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  // ---------------------------------------------------------------- incoming

  private onMessage(conn: Connection, text: string): void {
    if (conn !== this.conn) return;
    const events = this.codec.decode(text);
    if (events instanceof VoiceSessionError) {
      this.emit('error', events);
      return;
    }
    for (const event of events) this.onEvent(conn, event);
    for (const reply of this.codec.takeReplies?.() ?? []) if (conn.transport.open) conn.transport.send(reply);
  }

  private onEvent(conn: Connection, event: ServerEvent): void {
    switch (event.type) {
      case 'session.ready':
        this._agentReady = event.agent_ready;
        this.tracker.ready(event.resumed);
        conn.gotReady();
        return;
      case 'pong':
        this.heartbeat.pong();
        for (const wake of [...this.pongWaiters]) wake();
        return;
      case 'error':
        this.emit('error', new VoiceSessionError('server_error', event.message, { serverCode: event.code }));
        return;
      default:
        this.tracker.handle(event);
        if (event.type === 'output.speech_stopped') this.wakeSpeechWaiters();
    }
  }

  private onAudio(conn: Connection, stream: MediaStream): void {
    if (conn !== this.conn) return;
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

  private setWarmup(status: WarmupStatus): void {
    this._warmup = status;
    this.emit('warmup', status);
  }

  /**
   * The E1 warmup goes out once the call is connected, or WARMUP_DEFER_MS after the answer if the
   * connection takes longer (TURN, slow ICE): sent together with the answer, its request and the
   * service's work on it measurably delayed the ICE/DTLS handshake (~14 ms of ~125 ms in Chromium),
   * while the agent build it starts takes seconds, so a ~0.1 s later start costs nothing.
   */
  private fireWarmupSoon(sessionId: string): void {
    this.warmupTimer = setTimeout(() => this.fireWarmupNow(), WARMUP_DEFER_MS);
    this.pendingWarmupSessionId = sessionId;
  }

  private pendingWarmupSessionId: string | undefined;

  private fireWarmupNow(): void {
    clearTimeout(this.warmupTimer);
    this.warmupTimer = undefined;
    const sessionId = this.pendingWarmupSessionId;
    this.pendingWarmupSessionId = undefined;
    if (sessionId !== undefined) this.fireWarmup(sessionId);
  }

  private fireWarmup(sessionId: string): void {
    const { aiId, api, language, userIdentifier } = this.options;
    this.setWarmup('pending');
    api.realtime
      .warmup(aiId, { language: language ?? 'ja', session_id: sessionId, ...(userIdentifier ? { user_identifier: userIdentifier } : {}) })
      .then((res) => this.setWarmup(res.success ? 'ok' : 'failed'), () => this.setWarmup('failed'));
  }

  private setMuted(muted: boolean): void {
    if (this._muted === muted) return;
    this._muted = muted;
    this.applyMute();
    this.emit('mute', muted);
  }

  /** The session id, waiting for it while connecting (see report()). */
  private whenSessionId(): Promise<string> {
    if (this._sessionId) return Promise.resolve(this._sessionId);
    if (this._state.status === 'idle') return Promise.reject(new VoiceSessionError('not_connected', 'No call yet: call start() first'));
    if (isFinal(this._state)) return Promise.reject(this.noSession());
    return new Promise((resolve, reject) => this.sessionIdWaiters.push({ resolve, reject }));
  }

  private noSession(): VoiceSessionError {
    const state = this._state;
    return new VoiceSessionError('no_session', `The call ${state.status} before the service named a session: nothing to report`, state.status === 'failed' ? { cause: state.error } : {});
  }

  /** The call is over: report() calls still waiting for a session id will not get one. */
  private settleSessionIdWaiters(): void {
    for (const waiter of this.sessionIdWaiters.splice(0)) waiter.reject(this.noSession());
  }

  private applyMute(): void {
    for (const track of this.mic?.getAudioTracks() ?? []) track.enabled = !this._muted;
  }

  private requireConnected(): void {
    if (this._state.status !== 'connected' || this.closing) throw new VoiceSessionError('not_connected', `Not connected (state: ${this._state.status})`);
  }

  /** Validates and sends one client event; a local ValidationError for bad input, `not_connected` without an open link. */
  private sendEvent(event: ClientEvent): void {
    const message = this.codec.encode(event);
    const transport = this.conn?.transport;
    if (!transport?.open) throw new VoiceSessionError('not_connected', 'The data channel is not open');
    if (message !== undefined) for (const text of typeof message === 'string' ? [message] : message) transport.send(text);
  }

  /**
   * Resolves when a ping sent now is answered (the link carries messages again); rejects after `ms`.
   * A dialect without ping/pong has nothing to probe with: ICE connected again is taken as restored.
   */
  private probe(ms: number): Promise<void> {
    if (this.dialect.heartbeat === false) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.pongWaiters.delete(wake);
        if (ok) resolve();
        else reject(new Error(`no pong within ${ms} ms`));
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.pongWaiters.add(wake);
      try {
        this.sendEvent({ v: PROTOCOL_VERSION, type: 'ping', t: Date.now() });
      } catch {
        done(false);
      }
    });
  }

  private assistantDone(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.speechWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.speechWaiters.add(done);
    });
  }

  private wakeSpeechWaiters(): void {
    for (const wake of [...this.speechWaiters]) wake();
  }

  /** Waits until the data channel sent what it queued (bounded), so `session.end` leaves before the link closes. */
  private async drain(maxMs: number): Promise<void> {
    const until = Date.now() + maxMs;
    while (this.conn && this.conn.transport.bufferedAmount > 0 && Date.now() < until) await sleep(10);
  }
}
