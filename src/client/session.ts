import { EventEmitter } from 'eventemitter3';
import { PROTOCOL_VERSION, type ServerEvent } from '../schemas/realtime-events.js';
import { Attempt, type AttemptReport, type AttemptSetup } from './attempt.js';
import { DeviceWatch } from './devices.js';
import { NetworkWatch } from './network.js';
import { ResumeStore } from './resume-store.js';
import { systemClock, type Clock } from './clock.js';
import type { SessionEffect } from './effects.js';
import { Ending } from './ending.js';
import { classifyFailure, fromApiFailure, VoiceSessionError } from './errors.js';
import type { EventHandlers, Report, SessionEvents, TranscriptUpdate, Turn } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { InterruptionLedger } from './interruptions.js';
import { LevelMonitor, webAudioMeters } from './levels.js';
import { QualityTracker } from './quality/tracker.js';
import { Microphone } from './microphone.js';
import { NoiseStage } from './noise/stage.js';
import type { EndOptions, VoiceSessionOptions } from './options.js';
import { simplePeerTransport } from './peer.js';
import { AudioPlayback } from './playback.js';
import { PushToTalk } from './push-to-talk.js';
import { PreConnectBuffer } from './pre-connect.js';
import { webAudioCapture } from './pcm-capture.js';
import { v1Protocol } from './protocol.js';
import { jitteredBackoff } from './reconnect-policy.js';
import { Recovery } from './recovery.js';
import { fetchReport, reportWindow, type SessionReport } from './report.js';
import { SessionId } from './session-id.js';
import { SnapshotCache, type SessionSnapshot } from './snapshot.js';
import { TurnTimeline } from './timing/timeline.js';
import { checkTransition, isFinal, isLive, type EndReason, type ReconnectCause, type SessionState, type WarmupStatus } from './state.js';
import type { IceSignaling } from './transport.js';
import { TurnTracker } from './turns.js';
import { Warmup } from './warmup.js';

/** Default ping period: with 4 unanswered pings a dead path is noticed within 1.0-1.25 s (docs/client.md, "Recovery"). */
const DEFAULT_HEARTBEAT_MS = 250;

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
  private _agentReady: boolean | undefined;
  private _error: VoiceSessionError | undefined;
  private _iceSignaling: IceSignaling | undefined;
  /** The attempt carrying (or trying to carry) the call; reports of any other attempt are ignored. */
  private attempt: Attempt | undefined;
  private recovering: AbortController | undefined;
  private remote: MediaStream | undefined;
  private startPromise: Promise<void> | undefined;
  /** When start() began (clock time): the report's E12/E13 window is around it. */
  private startedAt = 0;
  private endPromise: Promise<void> | undefined;
  private readonly options: VoiceSessionOptions;
  private readonly clock: Clock;
  private readonly setup: AttemptSetup;
  private readonly snapshot: SnapshotCache;
  private readonly subscribers = new Set<() => void>();
  private readonly ids = new SessionId();
  // ---- effects: they report through `notify` (or their own callbacks) and never call into the session
  private readonly notify: Report = (event, ...args) => this.reported(event, args);
  private readonly warmupRequest: Warmup;
  private readonly microphone: Microphone;
  private readonly tracker: TurnTracker;
  private readonly quality: QualityTracker;
  private readonly timeline: TurnTimeline;
  private readonly heartbeat: Heartbeat;
  private readonly levels: LevelMonitor;
  private readonly meters: ReturnType<typeof webAudioMeters>;
  private readonly playback: AudioPlayback;
  private readonly recovery: Recovery;
  private readonly ending: Ending;
  private readonly devices: DeviceWatch;
  private readonly network: NetworkWatch;
  // ---- turn-taking and noise (issue 35): microphone cleaning, push-to-talk, who cut which answer
  private readonly noise: NoiseStage;
  private readonly pushToTalk: PushToTalk | undefined;
  private readonly preConnect: PreConnectBuffer;
  private readonly ledger = new InterruptionLedger();
  private reconnectCause: ReconnectCause = 'connection_lost';
  /** Set with `resume: true`: where the live call's id is kept for a reload. */
  private readonly resumeStore: ResumeStore | undefined;
  /** The first attempt named a stored session id (resume after reload). */
  private resuming = false;
  private _resumed = false;
  /** Lifecycle hooks of the effects, in order (effects.ts). */
  private readonly effects: SessionEffect[];
  /** For the microphone's device switch: whether the call is over, and the current attempt's sender for the new track. */
  private readonly callOver = () => !isLive(this._state);
  private readonly sendTrack = (old: MediaStreamTrack, track: MediaStreamTrack, stream: MediaStream) => this.attempt?.transport.replaceTrack(old, track, stream);
  private readonly onAbort = () => {
    this.endPromise ??= this.finish('immediate', 'aborted');
  };

  constructor(options: VoiceSessionOptions) {
    super();
    this.options = options;
    const clock = (this.clock = options.clock ?? systemClock);
    const protocol = options.protocol ?? v1Protocol;
    this.setup = {
      target: options, clock, protocol, codec: protocol.codec(clock),
      provider: options.transport ?? simplePeerTransport({ ...(options.iceServers ? { iceServers: options.iceServers } : {}), ...(options.wrtc ? { wrtc: options.wrtc } : {}) }),
    };
    this.playback = new AudioPlayback(options.audioElement, clock, {
      blocked: (error) => {
        this.notify('playbackBlocked');
        this.notify('error', error);
      },
      resumed: () => this.notify('playbackResumed'),
    });
    this.warmupRequest = new Warmup(options, clock, (status) => this.notify('warmup', status));
    this.noise = new NoiseStage(options, (status) => this.notify('noiseSuppression', status));
    const pushToTalk = options.turnTaking === 'push-to-talk';
    this.microphone = new Microphone(options.microphone, (muted) => this.notify('mute', muted), () => void this.microphoneLost(), this.noise, pushToTalk);
    this.pushToTalk = pushToTalk ? new PushToTalk(clock, {
      setOpen: (open) => this.microphone.setTalking(open),
      interruptAnswer: () => this.cutAnswer('caller'),
      commit: () => {
        if (this._state.status === 'connected') this.attempt?.send({ v: PROTOCOL_VERSION, type: 'input.commit' });
      },
      changed: (talking) => this.notify('talking', talking),
    }, () => this.noise.latencyMs) : undefined;
    this.preConnect = new PreConnectBuffer(options.preConnectBuffer, { clock, open: () => this.microphone.audible, hold: (on) => this.microphone.hold(on), pushToTalk, capture: webAudioCapture() });
    this.devices = new DeviceWatch((devices) => this.notify('devices', devices));
    this.network = new NetworkWatch({
      offline: () => {
        if (this._state.status === 'connected') this.lost(this.attempt, 'offline');
      },
      changed: () => {
        this.recovery.networkChanged();
        // The path the call used is likely gone: restart ICE now rather than wait for missed pings.
        if (this._state.status === 'connected') this.lost(this.attempt, 'network_change');
      },
    });
    this.resumeStore = options.resume ? new ResumeStore(options.aiId, () => clock.now(), options.resumeWindowMs) : undefined;
    this.quality = new QualityTracker({ changed: (quality) => this.notify('quality', quality), clock }, options.quality);
    this.timeline = new TurnTimeline({
      now: () => clock.now(), rttMs: () => this.heartbeat.rttMs, offsetMs: () => this.heartbeat.offsetMs, marks: (input) => this.quality.turnFinished(input),
      bufferingMs: () => this.quality.jitterBufferMs, playbackMs: () => this.meters?.outputLatencyMs() ?? null,
    });
    this.tracker = new TurnTracker(this.notify, {
      ...(options.maxTranscriptChars !== undefined ? { maxTranscriptChars: options.maxTranscriptChars } : {}),
      timing: (completed) => this.timeline.finished(completed),
      interruptedBy: (event) => this.ledger.interruptedBy(event),
    }, () => clock.now());
    const pings = protocol.heartbeat !== false;
    this.heartbeat = new Heartbeat({
      clock,
      // A protocol without ping/pong relies on the transport noticing a dead link.
      intervalMs: pings ? options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_MS : 0,
      send: (t) => this.attempt?.send({ v: PROTOCOL_VERSION, type: 'ping', t }),
      onDead: () => this.lost(this.attempt),
    });
    this.meters = options.levelMeter ? undefined : webAudioMeters();
    this.levels = new LevelMonitor(options.levelMeter ?? this.meters?.factory, (levels) => this.emit('level', levels), clock, 100, (levels) =>
      this.quality.level(levels.input, levels.output),
    );
    this.recovery = new Recovery({
      clock, probes: pings, policy: options.reconnectPolicy ?? jitteredBackoff(),
      reconnectTimeoutMs: options.reconnectTimeoutMs ?? 15000, connectTimeoutMs: options.connectTimeoutMs ?? 15000,
      network: this.network,
    }, {
      trying: (how, attempt) => this.go({ status: 'reconnecting', sessionId: this.ids.value!, how, attempt, cause: this.reconnectCause }),
      restored: (attempt) => this.connected(attempt),
      gaveUp: (error) => {
        this.close({ status: 'ended', sessionId: this.ids.value!, reason: 'connection_lost' });
        this.notify('error', error);
      },
    });
    this.ending = new Ending(clock, options.gracefulEndTimeoutMs ?? 10000);
    this.effects = [
      this.preConnect,
      { connected: () => this.warmupRequest.now(), close: () => this.warmupRequest.cancel() },
      { connected: () => this.heartbeat.start(), lost: () => this.heartbeat.stop(), close: () => this.heartbeat.stop() },
      { connected: () => this.levels.start(), close: () => (this.levels.close(), this.meters?.close()) },
      { lost: () => this.tracker.connectionLost(), close: () => this.tracker.connectionLost() },
      { close: () => (this.pushToTalk?.stop(), this.noise.close()) },
      { lost: () => this.ending.speechOver(), close: () => this.ending.speechOver() },
      { close: () => this.microphone.stop() },
      // Listed once connected (after the microphone permission: only then do devices have labels):
      // enumerateDevices() is a round trip to the browser's media process, kept off the connect path.
      { connected: () => void Promise.resolve().then(() => this._state.status === 'connected' && this.devices.start()), close: () => this.devices.close() },
      { close: () => this.network.close() },
      // A live call's id is kept for a reload; once the call is over there is nothing to continue.
      { connected: () => this.resumeStore?.keep(this.ids.value!), close: () => this.resumeStore?.clear() },
      { close: () => this.playback.release() },
      this.quality,
      this.timeline,
    ];
    this.snapshot = new SnapshotCache(() => ({
      status: this._state.status, state: this._state, warmup: this.warmupRequest.status, muted: this.microphone.muted, sessionId: this.ids.value,
      turnsSource: this.tracker.turns, live: this.tracker.live, userSpeaking: this.tracker.userSpeaking,
      assistantSpeaking: this.tracker.assistantSpeaking, playbackBlocked: this.playback.blocked, error: this._error,
      iceSignaling: this._iceSignaling, quality: this.quality.quality, devices: this.devices.current, resumed: this._resumed,
      noiseSuppression: this.noise.status, talking: this.pushToTalk?.talking ?? false,
    }));
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
    this.microphone.setMuted(true);
  }

  unmute(): void {
    this.microphone.setMuted(false);
  }

  /** Asks a typed question (it replaces an answer under way: `Turn.interruptedBy` `app`). Throws `not_connected` unless connected, a local ValidationError for empty or too long text. */
  sendText(text: string): void {
    const attempt = this.requireConnected();
    attempt.send({ v: PROTOCOL_VERSION, type: 'input.text', text });
    this.ledger.cut('app', this.tracker.live?.turnId);
    this.ledger.typed();
  }

  /** Stops the assistant's current answer (`Turn.interruptedBy` `app`). */
  interrupt(): void {
    this.cutAnswer('app');
  }

  /**
   * Push-to-talk (`turnTaking: 'push-to-talk'`): `talk(true)` while the caller holds the talk
   * button opens the microphone (cutting an answer under way: the caller interrupts it), `talk(false)`
   * closes it and tells the service the utterance is complete, so it answers at once. `talk(true)`
   * throws `not_connected` unless connected and `not_supported` in `auto` turn-taking;
   * `talk(false)` never throws (a release after the call ended does nothing).
   */
  talk(on: boolean): void {
    if (!on) return this.pushToTalk?.release();
    if (!this.pushToTalk) throw new VoiceSessionError('not_supported', "talk() needs turnTaking: 'push-to-talk'");
    if (!this.preConnect.buffering) this.requireConnected();
    this.pushToTalk.press(this.tracker.assistantSpeaking);
  }

  /** Sends `response.interrupt` for the answer under way and remembers who asked. */
  private cutAnswer(by: 'caller' | 'app'): void {
    this.requireConnected().send({ v: PROTOCOL_VERSION, type: 'response.interrupt' });
    this.ledger.cut(by, this.tracker.live?.turnId);
  }

  /** Switches the microphone to another input device without reconnecting (the sender's track is replaced). */
  async setInputDevice(deviceId: string): Promise<void> {
    if (!this.microphone.stream || !isLive(this._state)) throw new VoiceSessionError('not_connected', 'No call in progress');
    const stream = await this.microphone.switchTo(deviceId, this.callOver, this.sendTrack);
    this.levels.setInput(this.microphone.input ?? stream);
  }

  /**
   * Routes the assistant's audio to the output device `deviceId` (from `snapshot.devices.outputs`;
   * `''` is the system default) with `HTMLMediaElement.setSinkId`, before or during a call. Rejects
   * with `not_supported` where the browser has no `setSinkId`, `device_unavailable` when it
   * refuses that device.
   */
  setOutputDevice(deviceId: string): Promise<void> {
    return this.playback.setOutput(deviceId);
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
   * E12 and E13 are asked for the call's own window (`start_time`/`end_time`, an hour either side
   * of its start), never the robot's whole history. Works during and after the call; while connecting it waits for the service to name the
   * session. Rejects (no `error` event) with `not_connected` before start(), `no_session` when the
   * call ended or failed before the service named it, or the API failure's precise code.
   */
  async report(): Promise<SessionReport> {
    const sessionId = await this.ids.when(this._state);
    try {
      return await fetchReport(this.options.api, this.options.aiId, sessionId, this.tracker.turns, reportWindow(this.startedAt, this.clock.now()), this.quality.report(), this.preConnect.report());
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
    this.startedAt = this.clock.now();
    this.go({ status: 'connecting', attempt: 1 });
    const stillConnecting = () => this._state.status === 'connecting';
    try {
      this.setup.provider.preflight?.();
      if (!this.microphone.textOnly) {
        const mic = await this.microphone.open(() => !stillConnecting());
        if (!mic) return;
        this.levels.setInput(this.microphone.input ?? mic);
        this.preConnect.begin((this.microphone.input ?? mic).getAudioTracks()[0]);
      }
      this.network.start();
      const attempt = await this.firstAttempt(this.options.connectTimeoutMs ?? 15000);
      if (stillConnecting()) this.connected(attempt);
    } catch (err) {
      if (!stillConnecting()) return;
      const error = err instanceof VoiceSessionError ? err : new VoiceSessionError('connection_failed', 'Could not connect', { cause: err });
      this.close({ status: 'failed', error });
      this.notify('error', error);
      throw error;
    }
  }

  /**
   * The first attempt: with `resume: true` and a recent stored id, it continues that session; when
   * the service refuses it (ended long ago, deleted: a 4xx), a new session is made in the time left.
   */
  private async firstAttempt(timeoutMs: number): Promise<Attempt> {
    const stored = this.resumeStore?.take();
    if (!stored) return this.open(undefined, timeoutMs);
    const began = this.clock.now();
    this.resuming = true;
    try {
      return await this.open(stored, timeoutMs);
    } catch (err) {
      // Only a refusal (a 4xx: ended long ago, deleted) means the stored session is gone.
      if (this._state.status !== 'connecting' || this.ids.value || classifyFailure(err).retryable) throw err;
      this.resuming = false;
      this.resumeStore!.clear();
      return this.open(undefined, Math.max(0, timeoutMs - (this.clock.now() - began)));
    }
  }

  /** The microphone's track ended by itself: switch to the default microphone on the same connection. */
  private async microphoneLost(): Promise<void> {
    if (!isLive(this._state)) return;
    this.notify('error', new VoiceSessionError('device_lost', 'The microphone stopped (unplugged, switched off or taken by another app); switching to the default microphone'));
    try {
      const stream = await this.microphone.switchTo(undefined, this.callOver, this.sendTrack);
      this.levels.setInput(this.microphone.input ?? stream);
    } catch (err) {
      if (!isLive(this._state)) return;
      this.notify('error', err instanceof VoiceSessionError ? err : new VoiceSessionError('microphone_unavailable', 'No microphone could replace the lost one', { cause: err }));
    }
    void this.devices.refresh();
  }

  /** Makes `attempt` the current one and runs it (continuing `sessionId` when given). */
  private async open(sessionId: string | undefined, timeoutMs: number): Promise<Attempt> {
    const attempt = (this.attempt = new Attempt(this.setup, this.microphone.stream, this.attemptReport));
    try {
      await attempt.run(sessionId, timeoutMs);
      return attempt;
    } catch (err) {
      if (this.attempt === attempt) this.attempt = undefined;
      throw err;
    }
  }

  private connected(attempt: Attempt): void {
    if (attempt !== this.attempt) return;
    // Effects first: listeners of `connected` already see the warmup under way.
    for (const effect of this.effects) effect.connected?.(attempt);
    this.go({ status: 'connected', sessionId: this.ids.value! });
  }

  /** `attempt` died (closed, ICE failed, heartbeat) or its network went away or changed: recover if it carried the call. */
  private lost(attempt: Attempt | undefined, cause: ReconnectCause = 'connection_lost'): void {
    if (!attempt || attempt !== this.attempt) return;
    this.ending.speechOver();
    if (this._state.status !== 'connected') return;
    this.reconnectCause = cause;
    for (const effect of this.effects) effect.lost?.();
    this.recovering = new AbortController();
    void this.recover(this._state.sessionId, attempt, this.recovering.signal);
  }

  /** Runs a recovery: it asks for each new attempt, the session opens it and answers with the outcome. */
  private async recover(sessionId: string, dropped: Attempt, signal: AbortSignal): Promise<void> {
    const steps = this.recovery.run(sessionId, dropped, signal);
    for (let step = await steps.next(); !step.done;) {
      const { sessionId: id, timeoutMs } = step.value;
      step = await steps.next(await this.open(id, timeoutMs).then((attempt) => ({ attempt }), (error: unknown) => ({ error })));
    }
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
      this.microphone.silence();
      this.heartbeat.stop();
      if (state.status === 'connected' && this.attempt) await this.ending.goodbye(this.attempt, mode, this.tracker.assistantSpeaking);
    }
    this.close({ status: 'ended', reason, ...named });
  }

  /** The call is over: every effect releases what it holds, then the final state. */
  private close(final: Extract<SessionState, { status: 'ended' | 'failed' }>): void {
    this.recovering?.abort();
    this.attempt?.abort();
    this.attempt = undefined;
    for (const effect of this.effects) effect.close?.();
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.go(final);
    this.ids.settle(this._state);
  }

  // ---------------------------------------------------------------- reports

  /** What the current attempt reports; an attempt the session dropped is not heard. */
  private readonly attemptReport: AttemptReport = {
    answered: (attempt, id) => {
      if (attempt === this.attempt && this.ids.name(id)) this.warmupRequest.soon(id);
    },
    event: (attempt, event) => {
      if (attempt !== this.attempt) return;
      this.heartbeat.alive();
      this.serverEvent(event);
    },
    invalid: (attempt, error) => {
      if (attempt === this.attempt) this.notify('error', error);
    },
    audio: (attempt, stream) => {
      if (attempt !== this.attempt) return;
      this.remote = stream;
      this.levels.setOutput(stream);
      this.playback.attach(stream);
    },
    closed: (attempt) => this.lost(attempt),
    signaling: (attempt, mode) => {
      if (attempt !== this.attempt || mode === this._iceSignaling) return;
      this._iceSignaling = mode;
      this.notify('iceSignaling', mode);
    },
  };

  /**
   * Where each server event goes: one handler per event of the `ServerEvent` union, so a new event
   * fails to compile here until it is routed (docs/architecture.md, "A new server event").
   */
  private readonly serverEvents: EventHandlers<ServerEvent> = {
    'session.ready': (event) => {
      this._agentReady = event.agent_ready;
      if (this.resuming && this._state.status === 'connecting') this._resumed = event.resumed === true;
      this.tracker.ready(event.resumed);
      this.preConnect.ready(event);
    },
    pong: (event) => {
      this.heartbeat.alive(event.t, event.at_ms); // its round trip sizes the dead-path allowance; at_ms: the service's clock (Turn.timing)
      this.recovery.pong();
    },
    error: (event) => this.notify('error', new VoiceSessionError('server_error', event.message, { serverCode: event.code })),
    'input.speech_started': (event) => this.tracker.handle(event),
    'input.speech_stopped': (event) => this.tracker.handle(event),
    'output.speech_started': (event) => this.tracker.handle(event),
    'output.speech_stopped': (event) => this.tracker.handle(event),
    'output.speech_paused': (event) => this.tracker.handle(event),
    'output.speech_resumed': (event) => this.tracker.handle(event),
    'transcript.delta': (event) => this.tracker.handle(event),
    'transcript.final': (event) => this.tracker.handle(event),
    'turn.completed': (event) => this.tracker.handle(event),
  };

  private serverEvent(event: ServerEvent): void {
    this.timeline.event(event);
    (this.serverEvents[event.type] as (event: ServerEvent) => void)(event);
  }

  /** An effect reported one of the session's events: the snapshot follows, then listeners and subscribers hear it. */
  private reported<K extends keyof SessionEvents>(event: K, args: Parameters<SessionEvents[K]>): void {
    if (event === 'error') this._error = args[0] as VoiceSessionError;
    if (event === 'assistantSpeaking' && args[0] === false) this.ending.speechOver();
    if (event === 'transcript') this.ending.transcript(args[0] as TranscriptUpdate);
    this.publish(event, args);
  }

  /** Rebuilds the snapshot, then emits `event` and tells subscribers. */
  private publish<K extends keyof SessionEvents>(event: K, args: Parameters<SessionEvents[K]>): void {
    this.snapshot.invalidate();
    (this.emit as (event: K, ...args: unknown[]) => boolean)(event, ...args);
    for (const listener of [...this.subscribers]) listener();
  }

  /** The one way the state changes: through the transition table (an illegal transition throws in development). */
  private go(next: SessionState): void {
    const previous = this._state;
    if (!checkTransition(previous.status, next.status)) return;
    this._state = next;
    this.publish('state', [next, previous]);
  }

  private requireConnected(): Attempt {
    if (this._state.status !== 'connected' || !this.attempt) throw new VoiceSessionError('not_connected', `Not connected (state: ${this._state.status})`);
    return this.attempt;
  }
}
