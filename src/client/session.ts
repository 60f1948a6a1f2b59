import { EventEmitter } from 'eventemitter3';
import { PROTOCOL_VERSION, type ClientEvent } from '../schemas/realtime-events.js';
import { negotiate, openConnection, retry, sleep, type Connection } from './connector.js';
import { VoiceSessionError } from './errors.js';
import type { SessionEvents, Turn } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { LevelMonitor, webAudioMeters } from './levels.js';
import { openMicrophone, stopStream } from './media.js';
import type { EndOptions, VoiceSessionOptions } from './options.js';
import { encodeClientEvent, parseServerEvent } from './protocol.js';
import { fetchReport, type SessionReport } from './report.js';
import { canTransition, isFinal, type EndReason, type SessionState, type WarmupStatus } from './state.js';
import { TurnTracker } from './turns.js';

/**
 * A voice call with a knowledge-base robot: microphone, WebRTC connection, warmup, protocol
 * events, turns, recovery and the report afterwards. One instance is one call; make a new one for
 * the next call.
 *
 * @example
 * const session = new VoiceSession({ aiId, api: createApiClient({ baseUrl: '/api/voice' }) });
 * session.on('turn', (turn) => console.log(turn.question, '→', turn.answer, turn.firstResponseMs));
 * await session.start();
 * // ...
 * await session.end();
 * const report = await session.report();
 */
export class VoiceSession extends EventEmitter<SessionEvents> {
  private _state: SessionState = { status: 'idle' };
  private _warmup: WarmupStatus = 'idle';
  private _muted = false;
  private _sessionId: string | undefined;
  private _agentReady: boolean | undefined;
  private readonly options: VoiceSessionOptions;
  private readonly tracker: TurnTracker;
  private readonly heartbeat: Heartbeat;
  private readonly levels: LevelMonitor;
  private readonly meters: ReturnType<typeof webAudioMeters>;
  private mic: MediaStream | undefined;
  private conn: Connection | undefined;
  private audio: HTMLAudioElement | undefined;
  private remote: MediaStream | undefined;
  private startPromise: Promise<void> | undefined;
  private endPromise: Promise<void> | undefined;
  /** Set as soon as end() (or abort) begins: every pending step then stands down. */
  private closing = false;
  private readonly speechWaiters = new Set<() => void>();
  private readonly onAbort = () => {
    this.endPromise ??= this.finish('immediate', 'aborted');
  };

  constructor(options: VoiceSessionOptions) {
    super();
    this.options = options;
    this.tracker = new TurnTracker(this);
    this.heartbeat = new Heartbeat({
      intervalMs: options.heartbeatIntervalMs ?? 1000,
      send: (t) => this.sendEvent({ v: PROTOCOL_VERSION, type: 'ping', t }),
      onDead: () => this.lost(this.conn),
    });
    this.meters = options.levelMeter ? undefined : webAudioMeters();
    this.levels = new LevelMonitor(options.levelMeter ?? this.meters?.factory, (levels) => this.emit('level', levels));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
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
   * service said `session.ready`. The E1 warmup is fired alongside and never awaited. Calling it
   * again returns the same promise. Rejects with a {@link VoiceSessionError} (state `failed`);
   * resolves without connecting when end() interrupted it.
   */
  start(): Promise<void> {
    if (!this.startPromise) {
      if (isFinal(this._state)) return Promise.reject(new VoiceSessionError('not_connected', 'This session has ended; create a new VoiceSession for another call'));
      this.startPromise = this.run();
    }
    return this.startPromise;
  }

  /** Ends the call, closes the connection and releases the microphone. Calling it again returns the same promise. */
  end(options: EndOptions = {}): Promise<void> {
    this.endPromise ??= this.finish(options.mode ?? 'graceful', 'local');
    return this.endPromise;
  }

  /** Stops sending microphone audio (the track stays open, so unmute() is instant). */
  mute(): void {
    this._muted = true;
    this.applyMute();
  }

  unmute(): void {
    this._muted = false;
    this.applyMute();
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
      if (old && this.conn) this.conn.link.replaceTrack(old, track, current);
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
   * such as a click. Rejects with `playback_blocked` if the browser still refuses.
   */
  async resumePlayback(): Promise<void> {
    await this.meters?.resume();
    if (!this.audio) return;
    try {
      await this.audio.play();
    } catch (err) {
      throw new VoiceSessionError('playback_blocked', 'The browser still blocks audio playback', { cause: err });
    }
  }

  /** After (or during) the call: this session's usage (E13), cost (E12) and audio (E14), fetched in parallel, with the turns. */
  report(): Promise<SessionReport> {
    const sessionId = this._sessionId;
    if (!sessionId) return Promise.reject(new VoiceSessionError('not_connected', 'No session yet: call start() first'));
    return fetchReport(this.options.api, this.options.aiId, sessionId, this.tracker.turns);
  }

  // ---------------------------------------------------------------- lifecycle

  private async run(): Promise<void> {
    if (this.options.signal?.aborted) {
      this.onAbort();
      return this.endPromise;
    }
    this.setState({ status: 'connecting' });
    try {
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
      throw error;
    }
  }

  /** One attempt; the first answer names the session and fires the E1 warmup (not awaited). */
  private async connect(sessionId: string | undefined, timeoutMs = this.options.connectTimeoutMs ?? 15000): Promise<Connection> {
    const conn = (this.conn = openConnection(this.mic!, this.options, {
      message: (c, text) => this.onMessage(c, text),
      track: (c, stream) => this.onTrack(c, stream),
      closed: (c) => this.lost(c),
    }));
    try {
      await negotiate(conn, this.options, sessionId, timeoutMs, (id) => {
        if (!this._sessionId) {
          this._sessionId = id;
          this.fireWarmup(id);
        }
      });
      return conn;
    } catch (err) {
      if (this.conn === conn) this.conn = undefined;
      throw err;
    }
  }

  private connected(conn: Connection): void {
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

  /** New offers for the same session until one connects or `reconnectTimeoutMs` is spent. */
  private async recover(): Promise<void> {
    const sessionId = this._sessionId!;
    const timeoutMs = this.options.reconnectTimeoutMs ?? 15000;
    this.heartbeat.stop();
    this.tracker.connectionLost();
    this.conn?.link.destroy();
    this.conn = undefined;
    try {
      await retry(timeoutMs, () => this.closing, async (attempt, left) => {
        this.setState({ status: 'reconnecting', sessionId, attempt });
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
  }

  private teardown(): void {
    this.heartbeat.stop();
    this.levels.close();
    this.meters?.close();
    this.conn?.abort.abort();
    this.conn?.link.destroy();
    this.conn = undefined;
    stopStream(this.mic);
    this.tracker.connectionLost();
    this.wakeSpeechWaiters();
    if (this.audio) {
      this.audio.pause();
      this.audio.srcObject = null;
    }
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  // ---------------------------------------------------------------- incoming

  private onMessage(conn: Connection, text: string): void {
    if (conn !== this.conn) return;
    const event = parseServerEvent(text);
    if (!event) return;
    if (event instanceof VoiceSessionError) {
      this.emit('error', event);
      return;
    }
    switch (event.type) {
      case 'session.ready':
        this._agentReady = event.agent_ready;
        this.tracker.ready(event.resumed);
        conn.gotReady();
        return;
      case 'pong':
        this.heartbeat.pong();
        return;
      case 'error':
        this.emit('error', new VoiceSessionError('server_error', event.message, { serverCode: event.code }));
        return;
      default:
        this.tracker.handle(event);
        if (event.type === 'output.speech_stopped') this.wakeSpeechWaiters();
    }
  }

  private onTrack(conn: Connection, stream: MediaStream): void {
    if (conn !== this.conn) return;
    this.remote = stream;
    this.levels.setOutput(stream);
    this.attachPlayback(stream);
    conn.gotTrack();
  }

  private attachPlayback(stream: MediaStream): void {
    const el = this.options.audioElement ?? this.audio ?? (typeof Audio === 'function' ? new Audio() : undefined);
    if (!el) return;
    this.audio = el;
    el.autoplay = true;
    el.srcObject = stream;
    el.play()?.catch((err: { name?: string }) => {
      if (err?.name !== 'NotAllowedError') return; // e.g. AbortError when the source changed again
      this.emit('playbackBlocked');
      this.emit('error', new VoiceSessionError('playback_blocked', 'The browser blocked audio playback: call resumePlayback() from a user gesture', { cause: err }));
    });
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

  private fireWarmup(sessionId: string): void {
    const { aiId, api, language, userIdentifier } = this.options;
    this.setWarmup('pending');
    api.realtime
      .warmup(aiId, { language: language ?? 'ja', session_id: sessionId, ...(userIdentifier ? { user_identifier: userIdentifier } : {}) })
      .then((res) => this.setWarmup(res.success ? 'ok' : 'failed'), () => this.setWarmup('failed'));
  }

  private applyMute(): void {
    for (const track of this.mic?.getAudioTracks() ?? []) track.enabled = !this._muted;
  }

  private requireConnected(): void {
    if (this._state.status !== 'connected' || this.closing) throw new VoiceSessionError('not_connected', `Not connected (state: ${this._state.status})`);
  }

  /** Validates and sends one client event; a local ValidationError for bad input, `not_connected` without an open link. */
  private sendEvent(event: ClientEvent): void {
    const json = encodeClientEvent(event);
    const link = this.conn?.link;
    if (!link?.open) throw new VoiceSessionError('not_connected', 'The data channel is not open');
    link.send(json);
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
    while (this.conn && this.conn.link.bufferedAmount > 0 && Date.now() < until) await sleep(10);
  }
}
