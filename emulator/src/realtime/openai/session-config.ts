import type { OaiSession, OaiSessionConfigIn, OaiTranscriptionConfig, OaiTurnDetection } from 'kb-voice/schemas';
import { DEFAULT_INTERRUPTIONS } from '../barge-in.js';
import type { TurnTakingSettings } from '../realtime-protocol.js';
import { thresholdsFor } from '../voice-likeness.js';

/**
 * The effective configuration of one OpenAI-protocol session, and how client configurations
 * (client secret, the call's `session` part, `session.update`) apply to it. What the emulator honours:
 * `turn_detection` (server or semantic VAD = the emulator's VAD; null = manual turns with
 * `input_audio_buffer.commit` + `response.create`), its `create_response`, `interrupt_response`,
 * `threshold`, `prefix_padding_ms` and `silence_duration_ms` ({@link turnTakingOf}), and
 * `transcription.language` (the session language, fixed when the call starts). Instructions,
 * voice, speed and formats are kept and reported but change nothing: answers come from the robot's
 * dataset, speech from the emulator's synthesizer, and audio travels as Opus on the WebRTC track.
 */
export interface SessionState {
  id: string;
  model: string;
  instructions: string;
  turnDetection: OaiTurnDetection | null;
  transcription: OaiTranscriptionConfig | undefined;
  voice: string | undefined;
  speed: number;
  maxOutputTokens: number | 'inf';
  tracing: OaiSession['tracing'];
  expiresAt?: number;
}

/** A configuration the emulator cannot honour; `param` names the field. */
export class UnsupportedConfigError extends Error {
  constructor(readonly param: string, message: string) {
    super(message);
    this.name = 'UnsupportedConfigError';
  }
}

/** OpenAI's documented `server_vad` defaults: threshold 0.5, prefix_padding_ms 300, silence_duration_ms 500. */
export const SERVER_VAD_DEFAULTS = { threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } as const;

/**
 * What `turn_detection` means for the emulator's turn-taking: `threshold` → how periodic a frame must
 * be to count as voice (./voice-likeness.ts `thresholdsFor`), `prefix_padding_ms` → the audio kept
 * before the detected start, `silence_duration_ms` → the silence that ends an utterance,
 * `interrupt_response: false` or manual turns (null) → no barge-in. Interruption timing keeps the
 * emulator's defaults (OpenAI has no such settings).
 */
export function turnTakingOf(state: SessionState): TurnTakingSettings {
  const d = state.turnDetection;
  const mode = d && d.interrupt_response !== false ? 'auto' : 'off';
  return {
    interruptions: { ...DEFAULT_INTERRUPTIONS, mode },
    vad: {
      stopMs: d?.silence_duration_ms ?? SERVER_VAD_DEFAULTS.silence_duration_ms,
      preRollMs: d?.prefix_padding_ms ?? SERVER_VAD_DEFAULTS.prefix_padding_ms,
      thresholds: thresholdsFor(d?.threshold ?? SERVER_VAD_DEFAULTS.threshold),
    },
  };
}

export function defaultSessionState(id: string, model: string): SessionState {
  return {
    id,
    model,
    instructions: '',
    // OpenAI's server_vad defaults (API reference, RealtimeSession.turn_detection).
    turnDetection: { type: 'server_vad', create_response: true, interrupt_response: true, ...SERVER_VAD_DEFAULTS },
    transcription: undefined,
    voice: undefined,
    speed: 1,
    maxOutputTokens: 'inf',
    tracing: null,
  };
}

/**
 * Applies a client configuration to `state` (returns a new state). Throws
 * {@link UnsupportedConfigError} for what the emulator does not implement (function calling and MCP
 * tools, text-only output) and for a `model` other than the session's robot.
 */
export function applySessionConfig(state: SessionState, config: OaiSessionConfigIn): SessionState {
  if (config.model !== undefined && config.model !== state.model) {
    throw new UnsupportedConfigError('session.model', `the session's model is the robot ${state.model}; it cannot become ${config.model}`);
  }
  if (config.tools && config.tools.length > 0) {
    throw new UnsupportedConfigError('session.tools', 'the emulator does not implement function calling or MCP tools');
  }
  if (config.output_modalities && !config.output_modalities.includes('audio')) {
    throw new UnsupportedConfigError('session.output_modalities', 'the emulator always answers with audio and its transcript');
  }
  const next: SessionState = { ...state };
  if (config.instructions !== undefined) next.instructions = config.instructions;
  const input = config.audio?.input;
  if (input && 'turn_detection' in input && input.turn_detection !== undefined) {
    next.turnDetection = input.turn_detection === null ? null : { create_response: true, interrupt_response: true, ...SERVER_VAD_DEFAULTS, ...input.turn_detection };
  }
  if (input && 'transcription' in input && input.transcription !== undefined) {
    next.transcription = input.transcription ?? undefined;
  }
  const output = config.audio?.output;
  if (output?.voice !== undefined) next.voice = output.voice;
  if (output?.speed !== undefined) next.speed = output.speed;
  if (config.max_output_tokens !== undefined) next.maxOutputTokens = config.max_output_tokens;
  const tracing = config.tracing;
  if (tracing === null || tracing === 'auto') next.tracing = tracing;
  else if (typeof tracing === 'object') next.tracing = { ...(tracing as { workflow_name?: string }) };
  return next;
}

/** The session as the server reports it. */
export function describeSession(state: SessionState): OaiSession {
  const format = { type: 'audio/pcm' as const, rate: 24000 as const };
  return {
    type: 'realtime',
    object: 'realtime.session',
    id: state.id,
    model: state.model,
    instructions: state.instructions,
    output_modalities: ['audio'],
    audio: {
      input: {
        format,
        ...(state.transcription ? { transcription: state.transcription } : {}),
        turn_detection: state.turnDetection,
      },
      output: { format, ...(state.voice !== undefined ? { voice: state.voice } : {}), speed: state.speed },
    },
    max_output_tokens: state.maxOutputTokens,
    tracing: state.tracing,
    ...(state.expiresAt !== undefined ? { expires_at: state.expiresAt } : {}),
  };
}
