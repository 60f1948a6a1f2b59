import type { ClientEvent, ServerEvent } from 'kb-voice/schemas';
import type { InterruptionSettings, JudgeAction } from './barge-in.js';
import type { TurnController } from './turn-controller.js';
import type { VadEvent } from './vad.js';
import type { VoiceLikenessThresholds } from './voice-likeness.js';

/**
 * A data-channel protocol: the kb-voice v1 protocol (./v1-protocol.ts) or OpenAI's Realtime one
 * (./openai). The connection keeps the media and the VAD; the turn controller keeps the turns; a
 * protocol decides what the client says and hears: it parses client messages, decides when a turn
 * starts or is cut, and retells the turns' events (kb-voice v1, src/schemas/turn-events.ts) in its
 * own vocabulary.
 */
export interface RealtimeProtocol {
  /** The data channel is open. */
  open(): void;
  /** True when `open()` announced pre-connect audio (v1 `pre_connect_audio`): the live audio waits for the client's first message. */
  readonly preConnect?: boolean;
  /** One message from the client. */
  message(data: unknown): void;
  /** The caller's voice activity (utterance start / end with its audio). */
  vad(event: VadEvent): void;
  /** One event of the session's turns, in v1 vocabulary, to tell the client. */
  event(event: ServerEvent): void;
  /**
   * The barge-in judge's decision about the caller's sound over the answer (./barge-in.ts):
   * `pause` it, `resume` it, `cut` it; `false-interruption` follows a `resume`.
   */
  interruption(action: JudgeAction): void;
}

/** Turn-taking settings a protocol may change mid-call (OpenAI `session.update`'s `turn_detection`). */
export interface TurnTakingSettings {
  interruptions?: InterruptionSettings;
  vad?: { stopMs?: number; preRollMs?: number; thresholds?: VoiceLikenessThresholds };
}

/** The turn controller's operations a protocol uses. */
export type TurnControl = Pick<TurnController, 'allocate' | 'start' | 'interrupt' | 'bargeIn' | 'active' | 'whenIdle' | 'pause' | 'resume' | 'bargeInAllowed'>;

/** What a protocol may do with its connection. */
export interface ProtocolHost {
  readonly sessionId: string;
  readonly robotId: string;
  /** Milliseconds since the peer was created. */
  now(): number;
  /** Sends one text message on the data channel (dropped once it is closed). */
  sendText(text: string): void;
  /** The call's turns. */
  readonly turns: TurnControl;
  /** Ends the call gracefully (the turn in progress is recorded). */
  end(): Promise<void>;
  /**
   * Ends the caller's utterance in progress now (push-to-talk's commit) instead of after the VAD's
   * hangover: its `stop` reaches {@link RealtimeProtocol.vad} before this returns, exactly as a
   * hangover's end would. False when no utterance was open or it held no speech (nothing is told).
   */
  endUtterance(): boolean;
  /**
   * One chunk of the caller's pre-connect audio (v1 `input.preconnect`): put ahead of the live
   * audio (./pre-connect.ts). Returns why it was refused, or undefined.
   */
  preConnect(chunk: Extract<ClientEvent, { type: 'input.preconnect' }>): string | undefined;
  /** Changes the call's turn-taking (barge-in settings, the VAD's timing and thresholds). */
  configure(settings: TurnTakingSettings): void;
}

export type ProtocolFactory = (host: ProtocolHost) => RealtimeProtocol;
