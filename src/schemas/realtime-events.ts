import * as z from 'zod/mini';

/**
 * The realtime data-channel protocol, version 1.
 *
 * One reliable, ordered data channel (label `kb-voice`) carries JSON text messages. Every message is
 * an object with `v: 1` and a `type`; a peer ignores messages whose `v` it does not know and answers
 * a malformed one with an `error` event (`code: "protocol_error"`). Times are milliseconds.
 * Turns are numbered from 1 per session (`turn_id`).
 */
export const PROTOCOL_VERSION = 1;
export const DATA_CHANNEL_LABEL = 'kb-voice';

const v = z.literal(PROTOCOL_VERSION);
const turnId = z.int().check(z.gte(1));
const role = z.enum(['user', 'assistant']);

/** Server → client events. */
export const SessionReadyEvent = z.looseObject({
  v, type: z.literal('session.ready'),
  session_id: z.string(),
  language: z.string(),
  /** True when the robot's agent is already built (warm): the first answer pays no build time. */
  agent_ready: z.boolean(),
  /**
   * On a reconnect (the offer named a `session_id`): true when the service still had the session's
   * state and continues it (turn numbering included), false when it did not know the session and
   * started it fresh. Absent on a first connection.
   */
  resumed: z.optional(z.boolean()),
  /**
   * What the service takes beyond the base protocol; absent means none. `pre_connect_audio`: it
   * accepts `input.preconnect` (the caller's audio from before the call was connected, put ahead of
   * the live audio).
   */
  capabilities: z.optional(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(32))),
});
/** The capability of `session.ready` under which a client sends its pre-connect audio. */
export const PRE_CONNECT_CAPABILITY = 'pre_connect_audio';
export const SpeechStartedEvent = z.looseObject({
  v, type: z.literal('input.speech_started'), turn_id: turnId, at_ms: z.number(),
});
/** `at_ms`: when the service detected the end of speech, on its clock (the one `pong.at_ms` reads). */
export const SpeechStoppedEvent = z.looseObject({
  v, type: z.literal('input.speech_stopped'), turn_id: turnId, at_ms: z.number(), duration_ms: z.number(),
  /**
   * True when the speech was heard over an answer that it did not interrupt (too short, or a
   * backchannel): it is not a turn, and no other event of `turn_id` follows.
   */
  false_interruption: z.optional(z.boolean()),
  /** How much of the utterance's audio (ms, pre-roll included) came from `input.preconnect`; absent when none. */
  pre_connect_ms: z.optional(z.number().check(z.gte(0))),
});
export const TranscriptDeltaEvent = z.looseObject({
  v, type: z.literal('transcript.delta'), turn_id: turnId, role, delta: z.string(),
});
export const TranscriptFinalEvent = z.looseObject({
  v, type: z.literal('transcript.final'), turn_id: turnId, role, text: z.string(),
  /** True when no recognizer produced words: `text` then describes the utterance instead. */
  placeholder: z.optional(z.boolean()),
  /** True when the words came from a QA script (emulator), not from a recognizer. */
  scripted: z.optional(z.boolean()),
});
export const OutputStartedEvent = z.looseObject({
  v, type: z.literal('output.speech_started'), turn_id: turnId,
});
/** The answer's audio is held: the caller may be interrupting (speech over it, not yet long enough to cut it). */
export const OutputPausedEvent = z.looseObject({
  v, type: z.literal('output.speech_paused'), turn_id: turnId,
});
/** A held answer continues where it stopped: what held it was a false interruption. */
export const OutputResumedEvent = z.looseObject({
  v, type: z.literal('output.speech_resumed'), turn_id: turnId,
});
export const OutputStoppedEvent = z.looseObject({
  v, type: z.literal('output.speech_stopped'), turn_id: turnId,
  reason: z.enum(['completed', 'interrupted', 'ended']),
});
export const TurnCompletedEvent = z.looseObject({
  v, type: z.literal('turn.completed'), turn_id: turnId,
  message_id: z.string(),
  input: z.enum(['voice', 'text']),
  question: z.string(),
  answer: z.string(),
  /** From the end of the user's input to the first audio frame of the answer; null when no answer audio played. */
  first_response_ms: z.nullable(z.number()),
  /**
   * Agent build time this turn paid (0 when the agent was warm); null when the service's events do
   * not carry it (an OpenAI-compatible server that does not report it): unknown, never a made-up 0.
   */
  agent_build_ms: z.nullable(z.number()),
  /** Duration of the user's speech (0 for text) and of the spoken answer. */
  input_duration_ms: z.number(),
  output_duration_ms: z.number(),
  interrupted: z.boolean(),
  /** Sounds that paused the answer without interrupting it (it resumed); absent when none. */
  false_interruptions: z.optional(z.int().check(z.gte(0))),
  /**
   * Told again, right after a reconnection's `session.ready`: the turn ended while the connection
   * it was answered on went away (its answer cut by that), so this completion never reached the
   * client then. A client keeps it once (by `message_id`) and ignores one of a turn it never saw.
   */
  resent: z.optional(z.literal(true)),
});
export const ErrorEvent = z.looseObject({
  v, type: z.literal('error'), code: z.string(), message: z.string(), turn_id: z.optional(turnId),
});
export const PongEvent = z.looseObject({
  v, type: z.literal('pong'), t: z.number(),
  /**
   * The service's clock when it answered (ms, the clock of the speech events' `at_ms`): with the
   * round trip it gives the client the offset between the two clocks (`Turn.timing`). Optional.
   */
  at_ms: z.optional(z.number()),
});

// Pure: an app that only reads events by type (the browser client, below) leaves the union out.
export const ServerEvent = /* @__PURE__ */ z.discriminatedUnion('type', [
  SessionReadyEvent, SpeechStartedEvent, SpeechStoppedEvent, TranscriptDeltaEvent, TranscriptFinalEvent,
  OutputStartedEvent, OutputPausedEvent, OutputResumedEvent, OutputStoppedEvent, TurnCompletedEvent, ErrorEvent, PongEvent,
]);
export type ServerEvent = z.infer<typeof ServerEvent>;
export type ServerEventOf<T extends ServerEvent['type']> = Extract<ServerEvent, { type: T }>;

/**
 * Each server event's schema by its `type` (the compiler checks it against {@link ServerEvent}): the
 * client reads a message with its type's schema, a lookup instead of the union (whose code, ~1 KB
 * min, is then not in the browser entry), and knows an unknown type without parsing.
 */
export const SERVER_EVENTS: { readonly [T in ServerEvent['type']]: z.ZodMiniType<ServerEventOf<T>> } = {
  'session.ready': SessionReadyEvent, 'input.speech_started': SpeechStartedEvent, 'input.speech_stopped': SpeechStoppedEvent,
  'transcript.delta': TranscriptDeltaEvent, 'transcript.final': TranscriptFinalEvent, 'output.speech_started': OutputStartedEvent,
  'output.speech_paused': OutputPausedEvent, 'output.speech_resumed': OutputResumedEvent, 'output.speech_stopped': OutputStoppedEvent,
  'turn.completed': TurnCompletedEvent, error: ErrorEvent, pong: PongEvent,
};

/** Client → server events. */
/**
 * Typed text the service can read: 1–4000 characters, not only whitespace, no control character
 * but tab, CR and LF (NUL and the like reach logs and prompts), no lone surrogate (not text: JSON
 * encoders and the model's tokenizer differ on it) and no bidi override or isolate (U+202A–202E,
 * U+2066–2069: they make a transcript read other than it is). Refused, never stripped: the caller
 * sees what was wrong instead of a question silently changed.
 */
export const TypedText = z.string().check(
  z.minLength(1), z.maxLength(4000),
  z.refine((text) => text.trim() !== '', 'Text must not be only whitespace'),
  z.refine((text) => !/[\0-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u.test(text), 'Text must not hold control characters, lone surrogates or bidi overrides'),
);
export const TextInputEvent = z.strictObject({ v, type: z.literal('input.text'), text: TypedText });
export const InterruptEvent = z.strictObject({ v, type: z.literal('response.interrupt') });
export const EndEvent = z.strictObject({ v, type: z.literal('session.end') });
export const PingEvent = z.strictObject({ v, type: z.literal('ping'), t: z.number() });
/**
 * Push-to-talk: the caller released the talk button, so the utterance heard since the last one is
 * complete: answer it now rather than after the service's end-of-speech silence.
 */
export const CommitEvent = z.strictObject({ v, type: z.literal('input.commit') });

/** Most base64 characters of one `input.preconnect` chunk (24576 bytes: 768 ms of 16 kHz PCM16), well under every data channel's message size limit. */
export const MAX_PRECONNECT_CHUNK_CHARS = 32768;
/** Most audio one call's `input.preconnect` chunks may carry in all (ms). */
export const MAX_PRECONNECT_MS = 30000;
/**
 * The caller's audio from before the call was connected (pre-connect buffer), sent once, right
 * after `session.ready` announced `pre_connect_audio`, in chunks numbered from 0; `final` on the
 * last. Mono PCM16 little-endian, base64, at `sample_rate`. The service puts it ahead of the live
 * audio, as if it had been heard first. A service without the capability is sent none.
 */
export const PreConnectAudioEvent = z.strictObject({
  v, type: z.literal('input.preconnect'),
  seq: z.int().check(z.gte(0), z.lte(1000)),
  audio: z.string().check(z.maxLength(MAX_PRECONNECT_CHUNK_CHARS), z.regex(/^[A-Za-z0-9+/]*={0,2}$/)),
  sample_rate: z.int().check(z.gte(8000), z.lte(48000)),
  final: z.boolean(),
});

export const ClientEvent = /* @__PURE__ */ z.discriminatedUnion('type', [TextInputEvent, InterruptEvent, EndEvent, PingEvent, CommitEvent, PreConnectAudioEvent]);
export type ClientEvent = z.infer<typeof ClientEvent>;
/** Each client event's schema by its `type`, as {@link SERVER_EVENTS}. */
export const CLIENT_EVENTS: { readonly [T in ClientEvent['type']]: z.ZodMiniType<Extract<ClientEvent, { type: T }>> } = {
  'input.text': TextInputEvent, 'response.interrupt': InterruptEvent, 'session.end': EndEvent, ping: PingEvent,
  'input.commit': CommitEvent, 'input.preconnect': PreConnectAudioEvent,
};
