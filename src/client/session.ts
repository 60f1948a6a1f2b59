import { EventEmitter } from 'eventemitter3';
import { ValidationError } from '../api/errors.js';
import { ClientEvent, PROTOCOL_VERSION, ServerEvent } from '../schemas/realtime-events.js';
import { toValidationDetail } from '../schemas/validation.js';
import { VoiceSessionError } from './errors.js';
import type { SessionEvents, Turn } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { LevelMonitor, webAudioMeters, type LevelMeterFactory } from './levels.js';
import { openMicrophone, stopStream, type MicrophoneSource } from './media.js';
import { PeerLink, type WrtcImplementation } from './peer.js';
import { fetchReport, type SessionReport, type VoiceSessionApi } from './report.js';
import { canTransition, isFinal, type EndReason, type SessionState, type WarmupStatus } from './state.js';
import { TurnTracker } from './turns.js';

/** Options of {@link VoiceSession}. */
export interface VoiceSessionOptions {
  /** The robot to talk to. */
  aiId: string;
  /** API client pointed at your relay (`createApiClient({ baseUrl: '/api/voice' })`), or any object with the same realtime methods. */
  api: VoiceSessionApi;
  /** Conversation language (default `ja`). */
  language?: string;
  /** Your user's id, stored with the session. */
  userIdentifier?: string;
  /** STUN/TURN servers (default none: host candidates only). */
  iceServers?: RTCIceServer[];
  /** Aborting it ends the call immediately (reason `aborted`). */
  signal?: AbortSignal;
  /** WebRTC implementation outside browsers (Node: `@roamhq/wrtc`). */
  wrtc?: WrtcImplementation;
  /** getUserMedia constraints (voice processing is always on) or a function returning a stream. */
  microphone?: MicrophoneSource;
  /** Where the assistant's audio plays; default a detached `new Audio()` in browsers, none in Node. */
  audioElement?: HTMLAudioElement;
  /** How long a dropped call is retried before it ends with `connection_lost` (default 15000 ms). */
  reconnectTimeoutMs?: number;
  /** Data-channel ping period; about 3 missed pongs mean the link is dead (default 1000 ms). */
  heartbeatIntervalMs?: number;
  /** Limit for one connection attempt: offer, signaling, ICE, remote audio and `session.ready` (default 15000 ms). */
  connectTimeoutMs?: number;
  /** How long a graceful end() waits for the assistant to finish its sentence (default 10000 ms). */
  gracefulEndTimeoutMs?: number;
  /** Level meter for the mic and the assistant's audio; default Web Audio where it exists (no levels in Node). */
  levelMeter?: LevelMeterFactory;
}

/** Options of {@link VoiceSession.end}. */
export interface EndOptions {
  /** `graceful` (default) lets the assistant finish its sentence first; `immediate` cuts it. */
  mode?: 'graceful' | 'immediate';
}

/** One connection attempt and what it still waits for. */
interface Connection {
  link: PeerLink;
  /** Cancels this attempt's signaling request. */
  abort: AbortController;
  sessionId?: string;
  track: Promise<void>;
  ready: Promise<void>;
  gotTrack(): void;
  gotReady(): void;
}

/** The service refused to continue the session (e.g. 404/409: deleted): retrying cannot help. */
function refused(err: unknown): boolean {
  const status = ((err as { cause?: { status?: unknown } }).cause)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects with `error()` after `ms`; `clear()` stops the timer. */
function deadline(ms: number, error: () => Error): { promise: Promise<never>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  promise.catch(() => undefined);
  return { promise, clear: () => clearTimeout(timer) };
}

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

  /** One attempt: offer, signaling (E1 warmup fired, not awaited), answer, then ICE + remote audio + session.ready. */
  private async connect(sessionId: string | undefined, timeoutMs = this.options.connectTimeoutMs ?? 15000): Promise<Connection> {
    const conn = this.newConnection();
    const limit = deadline(timeoutMs, () => new VoiceSessionError('connection_failed', `Connection not established within ${timeoutMs} ms`));
    // Every step also stops when the link closes (end() destroys it), whatever the step waits on.
    const closed = conn.link.closed.catch((cause: unknown) => {
      throw new VoiceSessionError('connection_failed', `The connection closed: ${(cause as Error)?.message ?? cause}`, { cause });
    });
    closed.catch(() => undefined);
    const step = <T>(promise: Promise<T>) => Promise.race([promise, limit.promise, closed]);
    try {
      const sdp = await step(conn.link.offer());
      const { aiId, api, language, userIdentifier } = this.options;
      let answer;
      try {
        answer = await step(api.realtime.connect(aiId, {
          type: 'offer', sdp, language: language ?? 'ja',
          ...(userIdentifier ? { user_identifier: userIdentifier } : {}),
          ...(sessionId ? { session_id: sessionId } : {}),
        }, { signal: conn.abort.signal }));
      } catch (err) {
        throw err instanceof VoiceSessionError ? err : new VoiceSessionError('signaling_failed', `Signaling failed: ${(err as Error)?.message ?? err}`, { cause: err });
      }
      if (sessionId && answer.session_id !== sessionId) {
        throw new VoiceSessionError('signaling_failed', `The service answered for session ${answer.session_id} instead of continuing ${sessionId}`);
      }
      conn.sessionId = answer.session_id;
      if (!this._sessionId) {
        this._sessionId = answer.session_id;
        this.fireWarmup(answer.session_id);
      }
      conn.link.answer(answer.sdp);
      // Connected only once the assistant's audio is attached and the service is ready, so its
      // first words are never cut off.
      await step(Promise.all([conn.link.opened, conn.track, conn.ready]));
      return conn;
    } catch (err) {
      conn.abort.abort();
      conn.link.destroy();
      if (this.conn === conn) this.conn = undefined;
      if (err instanceof VoiceSessionError) throw err;
      throw new VoiceSessionError('connection_failed', `Connection failed: ${(err as Error)?.message ?? err}`, { cause: err });
    } finally {
      limit.clear();
    }
  }

  private newConnection(): Connection {
    let gotTrack!: () => void;
    let gotReady!: () => void;
    const track = new Promise<void>((resolve) => (gotTrack = resolve));
    const ready = new Promise<void>((resolve) => (gotReady = resolve));
    const conn: Connection = { track, ready, gotTrack, gotReady, abort: new AbortController() } as Connection;
    conn.link = new PeerLink(
      { stream: this.mic!, iceServers: this.options.iceServers ?? [], ...(this.options.wrtc ? { wrtc: this.options.wrtc } : {}) },
      {
        message: (text) => this.onMessage(conn, text),
        track: (_track, stream) => this.onTrack(conn, stream),
        closed: () => this.lost(conn),
      },
    );
    this.conn = conn;
    return conn;
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
    const until = Date.now() + timeoutMs;
    this.heartbeat.stop();
    this.tracker.connectionLost();
    this.conn?.link.destroy();
    this.conn = undefined;
    let cause: unknown;
    for (let attempt = 1; !this.closing; attempt++) {
      this.setState({ status: 'reconnecting', sessionId, attempt });
      try {
        const left = Math.max(1, until - Date.now());
        const conn = await this.connect(sessionId, Math.min(left, this.options.connectTimeoutMs ?? 15000));
        if (this.closing) return;
        this.connected(conn);
        return;
      } catch (err) {
        cause = err;
        const left = until - Date.now();
        if (left <= 0 || refused(err)) break;
        await sleep(Math.min(250 * 2 ** (attempt - 1), 2000, left));
      }
    }
    if (this.closing) return;
    const error = new VoiceSessionError('connection_lost', `The connection was lost and not restored within ${timeoutMs} ms`, { cause });
    this.closing = true;
    this.teardown();
    this.setState({ status: 'ended', sessionId, reason: 'connection_lost' });
    this.emit('error', error);
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
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      this.emit('error', new VoiceSessionError('protocol_error', 'Data-channel message is not JSON', { cause: err }));
      return;
    }
    const version = (data as { v?: unknown } | null)?.v;
    // Protocol rule: messages of another (numeric) version are ignored, not errors.
    if (typeof version === 'number' && version !== PROTOCOL_VERSION) return;
    const parsed = ServerEvent.safeParse(data);
    if (!parsed.success) {
      this.emit('error', new VoiceSessionError('protocol_error', `Invalid data-channel message: ${parsed.error.issues[0]?.message ?? 'unknown'}`, { cause: parsed.error }));
      return;
    }
    const event = parsed.data;
    switch (event.type) {
      case 'session.ready':
        this._agentReady = event.agent_ready;
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
    const parsed = ClientEvent.safeParse(event);
    if (!parsed.success) throw new ValidationError(toValidationDetail(parsed.error, 'body', event), { local: true, cause: parsed.error });
    const link = this.conn?.link;
    if (!link?.open) throw new VoiceSessionError('not_connected', 'The data channel is not open');
    link.send(JSON.stringify(parsed.data));
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
