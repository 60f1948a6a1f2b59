import type { DeviceList } from './devices.js';
import type { InterruptedBy } from './interruptions.js';
import type { NoiseSuppressionStatus } from './noise/suppression.js';
import type { CallQuality } from './quality/sample.js';
import type { VoiceSessionError } from './errors.js';
import type { SessionState, WarmupStatus } from './state.js';
import type { IceSignaling } from './transport.js';
import type { TurnTiming } from './timing/phases.js';
import type { Source } from './sources/normalize.js';

/** One finished question/answer exchange, from the service's `turn.completed` event. */
export interface Turn {
  /**
   * The service's turn number within the session, from 1. It starts again from 1 after a
   * `session_reset` warning; `messageId` is what identifies a turn.
   */
  id: number;
  input: 'voice' | 'text';
  /** What the user said (transcript) or typed. */
  question: string;
  answer: string;
  /** Id of the stored session message (E17, E6): unique, the turn's identity. */
  messageId: string;
  /** From the end of the user's input to the first audio of the answer (ms); null when no answer audio played (cut or barged in before it). */
  firstResponseMs: number | null;
  /**
   * What the caller lived through: from the end of their speech as the client heard it (microphone
   * level) to the first audible sound of the answer at the client (ms). null when it could not be
   * measured: typed questions, no audio played, no level meter (docs/quality.md).
   */
  perceivedLatencyMs: number | null;
  /**
   * Where the perceived latency went, phase by phase (endpointing, service, network, buffering,
   * playback; docs/quality.md "Where the time goes"): each null when not measurable; when all
   * are known they add up to `perceivedLatencyMs`.
   */
  timing: TurnTiming;
  /**
   * Agent build time this turn paid (0 when the robot was warm); null when unknown (an
   * OpenAI-protocol server whose events do not report it).
   */
  agentBuildMs: number | null;
  /** True when the answer was cut (its audio stopped before the end). */
  interrupted: boolean;
  /**
   * Who cut the answer: `caller` (their speech, or `talk(true)` over it), `app` (`interrupt()`, a
   * typed question), `null` when it was not cut.
   */
  interruptedBy: InterruptedBy;
  /** Sounds that paused this answer without cutting it (it resumed where it stopped); 0 when none. */
  falseInterruptions: number;
  /** True when the question's words came from a QA script (the emulator's `PUT /_emulator/script`), not a recognizer. */
  scripted?: boolean;
  /** ISO 8601 time the client saw the turn complete. */
  completedAt: string;
  /**
   * Where the answer came from, read from the stored message in the background after the turn
   * (event `sources`): undefined until read (or when it could not be read), `[]` when the answer
   * cites nothing. A reference of a shape not recognized is a source with `raw` only (`title` '').
   */
  sources?: readonly Source[];
}

/** A transcript update. While `final` is false, `text` is everything received so far for that turn and role. */
export interface TranscriptUpdate {
  turnId: number;
  role: 'user' | 'assistant';
  text: string;
  final: boolean;
  /** True when no words were recognized and `text` describes the utterance instead. */
  placeholder?: boolean;
  /** True when the words came from a QA script (emulator), not from a recognizer. */
  scripted?: boolean;
}

/** The transcript of the turn in progress: what each side said so far (empty until they speak). */
export interface LiveTranscript {
  readonly turnId: number;
  readonly user: string;
  readonly assistant: string;
}

/**
 * Audio levels from 0 (silence) to 1 (full scale), on a perceptual (dB) scale; `null` when that
 * side cannot be measured (no meter for it, or the browser keeps Web Audio suspended) — never a
 * silent 0.
 */
export interface AudioLevels {
  input: number | null;
  output: number | null;
}

/** Events of {@link VoiceSession} (its EventEmitter: emitter.ts, eventemitter3's API). */
export interface SessionEvents {
  state: (state: SessionState, previous: SessionState) => void;
  warmup: (status: WarmupStatus) => void;
  userSpeaking: (speaking: boolean) => void;
  assistantSpeaking: (speaking: boolean) => void;
  transcript: (update: TranscriptUpdate) => void;
  turn: (turn: Turn) => void;
  /** `mute()`/`unmute()` changed the microphone's state. */
  mute: (muted: boolean) => void;
  level: (levels: AudioLevels) => void;
  /** The browser blocked playback: call `resumePlayback()` from a user gesture. */
  playbackBlocked: () => void;
  /** resumePlayback() succeeded after playback was blocked. */
  playbackResumed: () => void;
  error: (error: VoiceSessionError) => void;
  /** The audio devices changed (also `snapshot.devices`). */
  devices: (devices: DeviceList) => void;
  /** How the connection's ICE candidates reach the service (`fallback`: the service refused trickle); also `snapshot.iceSignaling`. */
  iceSignaling: (mode: IceSignaling) => void;
  /** A new call-quality value (about once a second while it changes); also `snapshot.quality`. */
  quality: (quality: CallQuality) => void;
  /** What cleans the microphone changed (rnnoise started, or fell back to the browser's); also `snapshot.noiseSuppression`. */
  noiseSuppression: (status: NoiseSuppressionStatus) => void;
  /** Push-to-talk: `talk()` opened or closed the microphone; also `snapshot.talking`. */
  talking: (talking: boolean) => void;
  /** A finished turn's sources were read (`Turn.sources`; the snapshot's turn is replaced by one carrying them). */
  sources: (turnId: number, sources: readonly Source[]) => void;
  /**
   * Push-to-talk: what came of a hold, once per hold after its release: `heard: true` once the
   * service heard the caller (a turn started), `false` when nothing did within `HEARD_WITHIN_MS`
   * (3 s) of the commit: show "I didn't catch that".
   */
  talk: (outcome: TalkOutcome) => void;
}

/** The `talk` event: whether the service heard a push-to-talk hold. */
export interface TalkOutcome {
  readonly heard: boolean;
}

/**
 * How an effect (turn tracker, warmup, microphone, playback) reports: one of the session's events,
 * which the session then applies to its snapshot and emits. Effects never hold the emitter.
 */
export type Report = <K extends keyof SessionEvents>(event: K, ...args: Parameters<SessionEvents[K]>) => void;

/**
 * A handler for each member of an event union, keyed by its `type`: a map typed this way fails to
 * compile until a new event of the union has its handler (VoiceSession's server events).
 */
export type EventHandlers<U extends { type: string }> = { readonly [K in U['type']]: (event: Extract<U, { type: K }>) => void };
