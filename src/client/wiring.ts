import type { ServerEvent } from '../schemas/realtime-events.js';
import type { Attempt } from './attempt.js';
import type { SessionConfig } from './config.js';
import { DeviceWatch } from './devices.js';
import type { SessionEffect } from './effects.js';
import { Ending } from './ending.js';
import { VoiceSessionError } from './errors.js';
import type { AudioLevels, EventHandlers, Report, Turn } from './events.js';
import { Heartbeat } from './heartbeat.js';
import { InterruptionLedger } from './interruptions.js';
import { LevelMonitor, webAudioMeters } from './levels.js';
import { Microphone } from './microphone.js';
import { NetworkWatch } from './network.js';
import { NoiseStage } from './noise/stage.js';
import { AudioPlayback } from './playback.js';
import { PushToTalk } from './push-to-talk.js';
import { PreConnectBuffer } from './pre-connect.js';
import { webAudioCapture } from './pcm-capture.js';
import { readStats } from './quality/stats.js';
import { QualityTracker } from './quality/tracker.js';
import { Recovery, type RecoveryReport } from './recovery.js';
import { ResumeStore } from './resume-store.js';
import type { SessionSnapshot } from './snapshot.js';
import type { IceSignaling } from './transport.js';
import { isLive, type ReconnectCause, type SessionState } from './state.js';
import { TurnTimeline } from './timing/timeline.js';
import { TurnTracker } from './turns.js';
import { Warmup } from './warmup.js';

/**
 * All the collaborators get of the session (the conductor): a way to report, its state to read,
 * the current attempt to send commands over, and the few decisions that are its own.
 */
export interface Conductor {
  /** Reports one of the session's events (the session applies it to its snapshot and emits it). */
  readonly report: Report;
  /** Audio levels (10 a second): emitted as they are, not part of the snapshot. */
  level(levels: AudioLevels): void;
  readonly recovery: RecoveryReport;
  state(): SessionState;
  /** The attempt carrying (or trying to carry) the call. */
  current(): Attempt | undefined;
  /** The current link died (heartbeat) or its network went away or changed (`cause`). */
  lost(cause?: ReconnectCause): void;
  /** Cut the answer under way (`caller`: push-to-talk pressed over it). */
  cut(by: 'caller' | 'app'): void;
  /** Whether the call is still connecting over an attempt that continues a stored session (`resume: true`). */
  resuming(): boolean;
}

/**
 * The session's collaborators, built once from its {@link SessionConfig} and wired to each other
 * and to the {@link Conductor}: the one place that knows who feeds whom. `effects` follow the
 * call's lifecycle in this order (effects.ts); to add an effect, build it here and list it there.
 */
export function wire(config: SessionConfig, conductor: Conductor) {
  const { options, clock } = config;
  const report = conductor.report;
  const whenConnected = (act: () => void) => conductor.state().status === 'connected' && act();
  const playback = new AudioPlayback(options.audioElement, clock, {
    blocked: (error) => (report('playbackBlocked'), report('error', error)),
    resumed: () => report('playbackResumed'),
  });
  const warmup = new Warmup(options, clock, (status) => report('warmup', status));
  const noise = new NoiseStage({ ...options, clock }, (status) => report('noiseSuppression', status));
  const microphone = new Microphone(options.microphone, (muted) => report('mute', muted), () => void microphoneLost(), noise, config.pushToTalk);
  const pushToTalk = config.pushToTalk ? new PushToTalk(clock, {
    setOpen: (open) => microphone.setTalking(open),
    interruptAnswer: () => conductor.cut('caller'),
    commit: () => whenConnected(() => conductor.current()?.send({ type: 'input.commit' })),
    changed: (talking) => report('talking', talking),
    outcome: (heard) => report('talk', { heard }),
  }, () => noise.latencyMs) : undefined;
  const meters = options.levelMeter ? undefined : webAudioMeters();
  const preConnect = new PreConnectBuffer(options.preConnectBuffer, { clock, open: () => microphone.audible, hold: (on) => microphone.hold(on), pushToTalk: config.pushToTalk, capture: webAudioCapture(meters?.context) });
  const devices = new DeviceWatch((list) => report('devices', list));
  const network = new NetworkWatch({
    offline: () => whenConnected(() => conductor.lost('offline')),
    // The path the call used is likely gone: restart ICE now rather than wait for missed pings.
    changed: () => (recovery.networkChanged(), whenConnected(() => conductor.lost('network_change'))),
  });
  const recovery = new Recovery({ ...config.recovery, network, lastHeard: () => heartbeat.heardAt }, conductor.recovery);
  const resumeStore = options.resume ? new ResumeStore(options.aiId, () => clock.now(), options.resumeWindowMs) : undefined;
  const quality = new QualityTracker({ changed: (value) => report('quality', value), clock }, options.quality);
  const heartbeat = new Heartbeat({
    clock, intervalMs: config.heartbeatMs, send: (t) => conductor.current()?.send({ type: 'ping', t }), onDead: () => conductor.lost(),
    pathBytes: () => conductor.current()?.transport.getStats?.().then((report) => readStats(report, 0).pathBytesReceived),
  });
  const timeline = new TurnTimeline({
    now: () => clock.now(), rttMs: () => heartbeat.rttMs, offsetMs: () => heartbeat.offsetMs, marks: (input) => quality.turnFinished(input),
    bufferingMs: () => quality.jitterBufferMs, playbackMs: () => meters?.outputLatencyMs() ?? null,
  });
  const ledger = new InterruptionLedger();
  const ending = new Ending(clock, config.gracefulEndTimeoutMs);
  const tracker = new TurnTracker(report, {
    ...(options.maxTranscriptChars !== undefined ? { maxTranscriptChars: options.maxTranscriptChars } : {}),
    timing: (completed) => timeline.finished(completed), interruptedBy: (event) => ledger.interruptedBy(event, conductor.state().status === 'ending'), heard: ending,
  }, () => clock.now());
  /** What the service and the link said of the call so far (for the snapshot and the getters). */
  const heard = { agentReady: undefined as boolean | undefined, resumed: false, iceSignaling: undefined as IceSignaling | undefined, remote: undefined as MediaStream | undefined };
  const levels = new LevelMonitor(options.levelMeter ?? meters?.factory, (value) => conductor.level(value), clock, 100, (value) => quality.level(value.input, value.output));

  /** Switches the microphone (the sender's track is replaced on the current attempt); `undefined`: the default one. */
  async function switchMicrophone(deviceId: string | undefined): Promise<void> {
    const callOver = () => !isLive(conductor.state());
    const stream = await microphone.switchTo(deviceId, callOver, (old, track, next) => conductor.current()?.transport.replaceTrack(old, track, next));
    levels.setInput(microphone.input ?? stream);
  }
  /** The microphone's track ended by itself: switch to the default microphone on the same connection. */
  async function microphoneLost(): Promise<void> {
    if (!isLive(conductor.state())) return;
    report('error', new VoiceSessionError('device_lost', 'The microphone stopped (unplugged, switched off or taken by another app); switching to the default microphone'));
    try {
      await switchMicrophone(undefined);
    } catch (err) {
      if (!isLive(conductor.state())) return;
      report('error', err instanceof VoiceSessionError ? err : new VoiceSessionError('microphone_unavailable', 'No microphone could replace the lost one', { cause: err }));
    }
    void devices.refresh();
  }

  /**
   * Where each server event goes: one handler per event of the `ServerEvent` union, so a new event
   * fails to compile here until it is routed (docs/architecture.md, "A new server event").
   */
  const routes: EventHandlers<ServerEvent> = {
    'session.ready': (event) => {
      heard.agentReady = event.agent_ready;
      if (conductor.resuming()) heard.resumed = event.resumed === true;
      tracker.ready(event.resumed);
      preConnect.ready(event);
    },
    // Its round trip sizes the dead-path allowance; at_ms: the service's clock (Turn.timing).
    pong: (event) => (heartbeat.alive(event.t, event.at_ms), recovery.pong()),
    error: (event) => report('error', new VoiceSessionError('server_error', event.message, { serverCode: event.code })),
    // Push-to-talk: the service heard the hold (its outcome, the `talk` event)
    'input.speech_started': (event) => (tracker.handle(event), pushToTalk?.heard()),
    'input.speech_stopped': (event) => tracker.handle(event),
    'output.speech_started': (event) => tracker.handle(event),
    'output.speech_stopped': (event) => tracker.handle(event),
    'output.speech_paused': (event) => tracker.handle(event),
    'output.speech_resumed': (event) => tracker.handle(event),
    'transcript.delta': (event) => (tracker.handle(event), event.role === 'user' && pushToTalk?.heard()),
    'transcript.final': (event) => (tracker.handle(event), event.role === 'user' && pushToTalk?.heard()),
    'turn.completed': (event) => tracker.handle(event),
  };

  const effects: SessionEffect[] = [
    preConnect, warmup, heartbeat, levels, ...(meters ? [meters] : []), tracker, ...(pushToTalk ? [pushToTalk] : []), noise, ending,
    microphone, devices, network, ...(resumeStore ? [resumeStore] : []), playback, quality, timeline,
  ];

  return {
    effects, warmup, microphone, tracker, quality, heartbeat, levels, meters, playback, recovery, ending, network, pushToTalk,
    resumeStore, switchMicrophone, heard, preConnect,
    /** Opens the microphone (unless the call is text-only); false when `standDown()` said the call stopped meanwhile. */
    async openMicrophone(standDown: () => boolean): Promise<boolean> {
      if (microphone.textOnly) return true;
      const opening = microphone.open(standDown);
      // While the device opens (and within start()'s call stack, so within the Start click's
      // gesture): the call's AudioContext, which the pre-connect capture and the meters need next.
      meters?.context();
      const stream = await opening;
      if (stream) {
        levels.setInput(microphone.input ?? stream);
        preConnect.begin((microphone.input ?? stream).getAudioTracks()[0]);
      }
      return stream !== undefined;
    },
    /** The call is ending: no new turn may start while the last answer finishes, and nothing but the goodbye is sent. */
    silence(): void {
      microphone.silence();
      heartbeat.stop();
    },
    /** Cuts the answer under way over `link` (`response.interrupt`) and remembers who asked (Turn.interruptedBy). */
    cut(link: Attempt, by: 'caller' | 'app'): void {
      link.send({ type: 'response.interrupt' });
      ledger.cut(by, tracker.live?.turnId);
    },
    /** Asks a typed question over `link`: it replaces an answer under way (`app`). */
    ask(link: Attempt, text: string): void {
      link.send({ type: 'input.text', text });
      ledger.cut('app', tracker.live?.turnId);
      ledger.typed();
    },
    /** How the current attempt's candidates reach the service (reported when it changes). */
    signaling(mode: IceSignaling): void {
      if (mode === heard.iceSignaling) return;
      heard.iceSignaling = mode;
      report('iceSignaling', mode);
    },
    /** One server event of the current attempt: it proves the link alive, then goes where it is routed. */
    serverEvent(event: ServerEvent): void {
      heartbeat.alive();
      timeline.event(event);
      (routes[event.type] as (event: ServerEvent) => void)(event);
    },
    /** The assistant's audio of the current attempt. */
    audio(stream: MediaStream): void {
      heard.remote = stream;
      levels.setOutput(stream);
      playback.attach(stream);
    },
    /** The collaborators' part of the snapshot (the session adds its state, id and last error). */
    snapshot: (): Omit<SessionSnapshot, 'turns' | 'status' | 'state' | 'sessionId' | 'error'> & { turnsSource: readonly Turn[] } => ({
      warmup: warmup.status, muted: microphone.muted, turnsSource: tracker.turns, live: tracker.live, userSpeaking: tracker.userSpeaking,
      assistantSpeaking: tracker.assistantSpeaking, playbackBlocked: playback.blocked, quality: quality.quality, devices: devices.current,
      noiseSuppression: noise.status, talking: pushToTalk?.talking ?? false, iceSignaling: heard.iceSignaling, resumed: heard.resumed,
    }),
  };
}

/** The wired collaborators of one session. */
export type SessionParts = ReturnType<typeof wire>;
