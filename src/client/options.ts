import type { QualityOptions } from './quality/options.js';
import type { Clock } from '../clock.js';
import type { LevelMeterFactory } from './levels.js';
import type { MicrophoneSource } from './media.js';
import type { WrtcImplementation } from './peer.js';
import type { NoiseAssets, NoiseModule, NoiseSuppressionMode } from './noise/suppression.js';
import type { VoiceGateOptions } from './noise/voice-gate.js';
import type { PreConnectBufferOption } from './pre-connect-options.js';
import type { ReconnectPolicy } from './reconnect-policy.js';
import type { VoiceSessionApi } from './report.js';
import type { InterruptionsOption, RealtimeProtocol } from './realtime-protocol.js';
import type { TransportProvider } from './transport.js';
import type { SourcesFeature } from './sources/api.js';

/** Options of `new VoiceSession(options)`. */
export interface VoiceSessionOptions {
  /** The robot to talk to. */
  aiId: string;
  /** API client pointed at your relay (`createApiClient({ baseUrl: '/api/voice' })`), or any object with the same realtime methods. */
  api: VoiceSessionApi;
  /** Conversation language (default `ja`). */
  language?: string;
  /** Your user's id, stored with the session. */
  userIdentifier?: string;
  /**
   * Barge-in: `auto` (default) lets the user's speech interrupt an answer; `off` queues it as the
   * next turn; `{ mode, minSpeechMs, resumeAfterMs }` also sets how long speech must last to cut an
   * answer and when an answer held by a shorter sound resumes (docs/real-world.md).
   */
  interruptions?: InterruptionsOption;
  // ---- turn-taking and noise (docs/client.md, "Noise and push-to-talk")
  /**
   * Who cleans the microphone: `browser` (default: the browser's noise suppression, echo
   * cancellation and gain control), `rnnoise` (rnnoise in an AudioWorklet, loaded by `noiseModule`,
   * and the client voice gate; echo cancellation stays the browser's), `off` (raw audio).
   */
  noiseSuppression?: NoiseSuppressionMode;
  /**
   * How `noiseSuppression: 'rnnoise'` loads its code: `() => import('kb-voice/noise')`. Your bundler
   * makes it a chunk fetched only when rnnoise is on; without it the call falls back to `browser`
   * (`snapshot.noiseSuppression.reason: 'no_module'`).
   */
  noiseModule?: () => Promise<NoiseModule>;
  /** Where rnnoise's worklet and WebAssembly are served (default beside `kb-voice/noise`). */
  noiseAssets?: NoiseAssets;
  /** The client voice gate with rnnoise (default on: pre-roll 200 ms, hangover 400 ms); `false` sends everything rnnoise cleaned. */
  voiceGate?: VoiceGateOptions | false;
  /**
   * Pre-connect buffer (default on, 10 s): the microphone is recorded from `start()` until the call
   * is connected, and that audio reaches the service ahead of the live audio where its
   * `session.ready` announces `pre_connect_audio` (else it is dropped), so words said while
   * connecting are heard. Never while muted; in push-to-talk only while talk is held. `false` turns
   * it off; `{ maxMs }` bounds it (at most 30000; the oldest audio is dropped beyond it).
   */
  preConnectBuffer?: PreConnectBufferOption;
  /** `auto` (default): the service hears the caller all the time; `push-to-talk`: only while `talk(true)`. */
  turnTaking?: 'auto' | 'push-to-talk';
  /**
   * How the session reaches the service; default the simple-peer WebRTC transport (using
   * `iceServers` and `wrtc`). kb-voice/testing has a scripted one.
   */
  transport?: TransportProvider;
  /** Wire protocol (signaling and data-channel format); default kb-voice v1. */
  protocol?: RealtimeProtocol;
  /** Characters kept of one turn's transcript per role (default 65536); beyond it, truncated and reported once as `protocol_error`. */
  maxTranscriptChars?: number;
  /** STUN/TURN servers for the default transport (default none: host candidates only). */
  iceServers?: RTCIceServer[];
  /** Aborting it ends the call immediately (reason `aborted`). */
  signal?: AbortSignal;
  /** WebRTC implementation for the default transport outside browsers (Node: `@roamhq/wrtc`). */
  wrtc?: WrtcImplementation;
  /**
   * getUserMedia constraints (voice processing is always on) or a function returning a stream;
   * `false`: a text-only call — no microphone is asked for, questions are typed (`sendText`),
   * answers are still spoken and captioned.
   */
  microphone?: MicrophoneSource | false;
  /**
   * Resume after a reload: while a call is live its session id is kept in `sessionStorage` under
   * `kb-voice:<aiId>`; a session started with `resume: true` in the same tab within
   * `resumeWindowMs` continues that service session (same `sessionId`, turn ids going on,
   * `snapshot.resumed`). `end()` clears it. Default false.
   */
  resume?: boolean;
  /** How long after the page left a call it can be resumed (default 120000 ms; the service keeps sessions resumable about as long). */
  resumeWindowMs?: number;
  /** Where the assistant's audio plays; default a detached `new Audio()` in browsers, none in Node. */
  audioElement?: HTMLAudioElement;
  /** How long a dropped call is retried before it ends with `connection_lost` (default 15000 ms). */
  reconnectTimeoutMs?: number;
  /** When a dropped call tries again (default {@link jitteredBackoff}: almost at once, then 250 ms doubling to 2 s, each ±50% at random). */
  reconnectPolicy?: ReconnectPolicy;
  /**
   * Longest `Retry-After` (ms) of a refused reconnection (a 429 or 503 that said when to come back)
   * the next try waits for (default 5000, as the API client's `maxRetryAfter`): never sooner than
   * the service said. A longer one, or one past what is left of `reconnectTimeoutMs`, ends the
   * recovery at once with `connection_lost` (its `cause` carries `retryAfterMs`).
   */
  maxRetryAfter?: number;
  /**
   * Data-channel ping period; 4 pings in a row with nothing heard back mean the path is dead
   * (default 250 ms: noticed within 1.0-1.25 s; 0 turns it off).
   */
  heartbeatIntervalMs?: number;
  /** Limit for one connection attempt: offer, signaling, ICE, remote audio and `session.ready` (default 15000 ms). */
  connectTimeoutMs?: number;
  /** How long a graceful end() waits for the assistant to finish its sentence (default 10000 ms). */
  gracefulEndTimeoutMs?: number;
  /** Level meter for the mic and the assistant's audio; default Web Audio where it exists (no levels in Node). */
  levelMeter?: LevelMeterFactory;
  /** Call-quality sampling (interval, window) and the thresholds of `Turn.perceivedLatencyMs`; docs/quality.md. */
  quality?: QualityOptions;
  /**
   * `withSources()` from `kb-voice/sources`: after each finished turn its sources are read in the
   * background (`Turn.sources`, event `sources`) and `rate()` works. Off by default (the core
   * entry does not ship that code); the widget turns it on.
   */
  sources?: SourcesFeature;
  /** Timers and time of every rule of the call (default the platform's); tests pass a fake clock. */
  clock?: Clock;
}

/** Options of `VoiceSession.end()`. */
export interface EndOptions {
  /** `graceful` (default) lets the assistant finish its sentence first; `immediate` cuts it. */
  mode?: 'graceful' | 'immediate';
}
