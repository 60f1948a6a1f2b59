import * as z from 'zod/mini';

/**
 * The OpenAI Realtime dialect (WebRTC): the shapes of `POST /v1/realtime/client_secrets`,
 * `POST /v1/realtime/calls` and the JSON events on the `oai-events` data channel, as far as the
 * emulator and the client use them. The `openai` npm package's `openai/resources/realtime` types are
 * the reference: test/schemas/openai-realtime.test.ts checks that every server event here is
 * assignable to its `RealtimeServerEvent`. Incoming objects are loose (unknown fields are kept and
 * ignored), outgoing ones carry exactly the fields listed.
 */
export const OAI_DATA_CHANNEL_LABEL = 'oai-events';

const nonNegative = z.number().check(z.gte(0));

export const OaiAudioFormat = z.looseObject({
  type: z.optional(z.enum(['audio/pcm', 'audio/pcmu', 'audio/pcma'])),
  rate: z.optional(z.literal(24000)),
});
export type OaiAudioFormat = z.infer<typeof OaiAudioFormat>;

export const OaiTranscriptionConfig = z.looseObject({
  model: z.optional(z.string()),
  language: z.optional(z.string()),
  prompt: z.optional(z.string()),
});
export type OaiTranscriptionConfig = z.infer<typeof OaiTranscriptionConfig>;

/** `server_vad` or `semantic_vad`; both run the emulator's VAD (`null` = manual turns). */
export const OaiTurnDetection = z.looseObject({
  type: z.enum(['server_vad', 'semantic_vad']),
  create_response: z.optional(z.boolean()),
  interrupt_response: z.optional(z.boolean()),
  silence_duration_ms: z.optional(z.int().check(z.gte(0), z.lte(10_000))),
  prefix_padding_ms: z.optional(z.int().check(z.gte(0), z.lte(10_000))),
  threshold: z.optional(z.number().check(z.gte(0), z.lte(1))),
  idle_timeout_ms: z.optional(z.nullable(z.number())),
  eagerness: z.optional(z.enum(['low', 'medium', 'high', 'auto'])),
});
export type OaiTurnDetection = z.infer<typeof OaiTurnDetection>;

/** A session configuration as clients send it (`client_secrets`, `calls`, `session.update`). */
export const OaiSessionConfigIn = z.looseObject({
  type: z.optional(z.literal('realtime')),
  model: z.optional(z.string()),
  instructions: z.optional(z.string()),
  output_modalities: z.optional(z.array(z.enum(['text', 'audio']))),
  audio: z.optional(
    z.looseObject({
      input: z.optional(
        z.looseObject({
          format: z.optional(OaiAudioFormat),
          transcription: z.optional(z.nullable(OaiTranscriptionConfig)),
          turn_detection: z.optional(z.nullable(OaiTurnDetection)),
          noise_reduction: z.optional(z.nullable(z.looseObject({ type: z.optional(z.string()) }))),
        }),
      ),
      output: z.optional(
        z.looseObject({
          format: z.optional(OaiAudioFormat),
          voice: z.optional(z.string()),
          speed: z.optional(z.number().check(z.gte(0.25), z.lte(1.5))),
        }),
      ),
    }),
  ),
  tools: z.optional(z.array(z.unknown())),
  tool_choice: z.optional(z.unknown()),
  tracing: z.optional(z.nullable(z.unknown())),
  max_output_tokens: z.optional(z.union([z.int().check(z.gte(1)), z.literal('inf')])),
});
export type OaiSessionConfigIn = z.infer<typeof OaiSessionConfigIn>;

/** The effective session as the server reports it (client secret, `session.created/updated`). */
export const OaiSession = z.object({
  type: z.literal('realtime'),
  object: z.literal('realtime.session'),
  id: z.string(),
  model: z.string(),
  instructions: z.string(),
  output_modalities: z.array(z.enum(['text', 'audio'])),
  audio: z.object({
    input: z.object({
      format: OaiAudioFormat,
      transcription: z.optional(OaiTranscriptionConfig),
      turn_detection: z.nullable(OaiTurnDetection),
    }),
    output: z.object({
      format: OaiAudioFormat,
      voice: z.optional(z.string()),
      speed: z.number(),
    }),
  }),
  max_output_tokens: z.union([z.number(), z.literal('inf')]),
  tracing: z.nullable(z.union([z.literal('auto'), z.looseObject({ workflow_name: z.optional(z.string()) })])),
  expires_at: z.optional(z.number()),
});
export type OaiSession = z.infer<typeof OaiSession>;

/** `POST /v1/realtime/client_secrets` body. `session.model` names the robot. */
export const OaiClientSecretIn = z.looseObject({
  expires_after: z.optional(
    z.looseObject({
      anchor: z.optional(z.literal('created_at')),
      seconds: z.optional(z.int().check(z.gte(10), z.lte(7200))),
    }),
  ),
  session: OaiSessionConfigIn,
});
export type OaiClientSecretIn = z.infer<typeof OaiClientSecretIn>;

/** `POST /v1/realtime/client_secrets` answer: the `ek_…` value, its expiry (Unix seconds) and the session. */
export const OaiClientSecretOut = z.object({
  value: z.string().check(z.startsWith('ek_')),
  expires_at: z.int(),
  session: OaiSession,
});
export type OaiClientSecretOut = z.infer<typeof OaiClientSecretOut>;

/** The `{ error }` body of a failed OpenAI-dialect HTTP request. */
export const OaiHttpError = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.nullable(z.string()),
    param: z.nullable(z.string()),
  }),
});
export type OaiHttpError = z.infer<typeof OaiHttpError>;

// ---- conversation items ----

const itemStatus = z.enum(['completed', 'incomplete', 'in_progress']);

export const OaiUserContent = z.object({
  type: z.enum(['input_text', 'input_audio']),
  text: z.optional(z.string()),
  /** For `input_audio`: the words once transcribed; '' while unknown or when transcription failed. */
  transcript: z.optional(z.string()),
});
export const OaiUserItem = z.object({
  id: z.string(),
  object: z.literal('realtime.item'),
  type: z.literal('message'),
  role: z.literal('user'),
  status: itemStatus,
  content: z.array(OaiUserContent),
});
export type OaiUserItem = z.infer<typeof OaiUserItem>;

export const OaiAssistantItem = z.object({
  id: z.string(),
  object: z.literal('realtime.item'),
  type: z.literal('message'),
  role: z.literal('assistant'),
  status: itemStatus,
  content: z.array(z.object({ type: z.literal('output_audio'), transcript: z.string() })),
});
export type OaiAssistantItem = z.infer<typeof OaiAssistantItem>;

export const OaiItem = z.discriminatedUnion('role', [OaiUserItem, OaiAssistantItem]);
export type OaiItem = z.infer<typeof OaiItem>;

// ---- server → client events ----

const eventId = z.string();
const base = <T extends string>(type: T) => ({ event_id: eventId, type: z.literal(type) });
const itemRef = { item_id: z.string() };
const partRef = { response_id: z.string(), item_id: z.string(), output_index: z.int(), content_index: z.int() };

export const OaiUsage = z.object({
  total_tokens: nonNegative,
  input_tokens: nonNegative,
  output_tokens: nonNegative,
  input_token_details: z.object({
    text_tokens: nonNegative,
    audio_tokens: nonNegative,
    cached_tokens: nonNegative,
    cached_tokens_details: z.object({ text_tokens: nonNegative, audio_tokens: nonNegative }),
  }),
  output_token_details: z.object({ text_tokens: nonNegative, audio_tokens: nonNegative }),
});
export type OaiUsage = z.infer<typeof OaiUsage>;

export const OaiResponse = z.object({
  id: z.string(),
  object: z.literal('realtime.response'),
  status: z.enum(['completed', 'cancelled', 'failed', 'incomplete', 'in_progress']),
  status_details: z.optional(
    z.object({
      type: z.optional(z.enum(['completed', 'cancelled', 'incomplete', 'failed'])),
      reason: z.optional(z.enum(['turn_detected', 'client_cancelled'])),
      error: z.optional(z.object({ type: z.optional(z.string()), code: z.optional(z.string()), message: z.optional(z.string()) })),
    }),
  ),
  output: z.array(OaiAssistantItem),
  output_modalities: z.array(z.enum(['text', 'audio'])),
  conversation_id: z.string(),
  usage: z.optional(OaiUsage),
  /** The emulator puts the recorded message's id here (`message_id`) when the turn was recorded. */
  metadata: z.optional(z.record(z.string(), z.string())),
});
export type OaiResponse = z.infer<typeof OaiResponse>;

export const OaiServerEvent = z.discriminatedUnion('type', [
  z.object({ ...base('session.created'), session: OaiSession }),
  z.object({ ...base('session.updated'), session: OaiSession }),
  z.object({ ...base('input_audio_buffer.speech_started'), ...itemRef, audio_start_ms: nonNegative }),
  z.object({ ...base('input_audio_buffer.speech_stopped'), ...itemRef, audio_end_ms: nonNegative }),
  z.object({ ...base('input_audio_buffer.committed'), ...itemRef, previous_item_id: z.nullable(z.string()) }),
  z.object({ ...base('input_audio_buffer.cleared') }),
  z.object({ ...base('conversation.item.added'), item: OaiItem, previous_item_id: z.nullable(z.string()) }),
  z.object({ ...base('conversation.item.done'), item: OaiItem, previous_item_id: z.nullable(z.string()) }),
  z.object({ ...base('conversation.item.retrieved'), item: OaiItem }),
  z.object({ ...base('conversation.item.deleted'), ...itemRef }),
  z.object({ ...base('conversation.item.truncated'), ...itemRef, content_index: z.int(), audio_end_ms: nonNegative }),
  z.object({
    ...base('conversation.item.input_audio_transcription.completed'), ...itemRef,
    content_index: z.int(),
    transcript: z.string(),
    usage: z.object({ type: z.literal('duration'), seconds: nonNegative }),
  }),
  z.object({
    ...base('conversation.item.input_audio_transcription.failed'), ...itemRef,
    content_index: z.int(),
    error: z.object({ type: z.string(), code: z.string(), message: z.string() }),
  }),
  z.object({ ...base('response.created'), response: OaiResponse }),
  z.object({ ...base('response.done'), response: OaiResponse }),
  z.object({ ...base('response.output_item.added'), response_id: z.string(), output_index: z.int(), item: OaiAssistantItem }),
  z.object({ ...base('response.output_item.done'), response_id: z.string(), output_index: z.int(), item: OaiAssistantItem }),
  z.object({ ...base('response.content_part.added'), ...partRef, part: z.object({ type: z.literal('audio'), transcript: z.string() }) }),
  z.object({ ...base('response.content_part.done'), ...partRef, part: z.object({ type: z.literal('audio'), transcript: z.string() }) }),
  z.object({ ...base('response.output_audio_transcript.delta'), ...partRef, delta: z.string() }),
  z.object({ ...base('response.output_audio_transcript.done'), ...partRef, transcript: z.string() }),
  z.object({ ...base('response.output_audio.done'), ...partRef }),
  z.object({ ...base('output_audio_buffer.started'), response_id: z.string() }),
  z.object({ ...base('output_audio_buffer.stopped'), response_id: z.string() }),
  z.object({ ...base('output_audio_buffer.cleared'), response_id: z.string() }),
  z.object({
    ...base('error'),
    error: z.object({
      type: z.string(),
      code: z.nullable(z.string()),
      message: z.string(),
      param: z.nullable(z.string()),
      event_id: z.nullable(z.string()),
    }),
  }),
]);
export type OaiServerEvent = z.infer<typeof OaiServerEvent>;
export type OaiServerEventType = OaiServerEvent['type'];

// ---- client → server events ----

const clientBase = <T extends string>(type: T) => ({ type: z.literal(type), event_id: z.optional(z.string()) });

export const OaiClientItem = z.looseObject({
  id: z.optional(z.string()),
  type: z.optional(z.string()),
  role: z.optional(z.string()),
  content: z.optional(z.array(z.looseObject({ type: z.optional(z.string()), text: z.optional(z.string()) }))),
});

export const OaiClientEvent = z.discriminatedUnion('type', [
  z.looseObject({ ...clientBase('session.update'), session: OaiSessionConfigIn }),
  z.looseObject({ ...clientBase('conversation.item.create'), item: OaiClientItem, previous_item_id: z.optional(z.nullable(z.string())) }),
  z.looseObject({ ...clientBase('conversation.item.retrieve'), item_id: z.string() }),
  z.looseObject({ ...clientBase('conversation.item.delete'), item_id: z.string() }),
  z.looseObject({ ...clientBase('conversation.item.truncate'), item_id: z.string(), content_index: z.int(), audio_end_ms: nonNegative }),
  z.looseObject({ ...clientBase('input_audio_buffer.append'), audio: z.string() }),
  z.looseObject({ ...clientBase('input_audio_buffer.commit') }),
  z.looseObject({ ...clientBase('input_audio_buffer.clear') }),
  z.looseObject({ ...clientBase('output_audio_buffer.clear'), response_id: z.optional(z.string()) }),
  z.looseObject({ ...clientBase('response.create'), response: z.optional(z.looseObject({})) }),
  z.looseObject({ ...clientBase('response.cancel'), response_id: z.optional(z.string()) }),
]);
export type OaiClientEvent = z.infer<typeof OaiClientEvent>;

// ---- the relay's routes of the dialect ----

/** Body of the relay's `…/realtime/client_secrets`: OpenAI's, with everything optional (the relay sets the robot and the user). */
export const OaiRelaySecretIn = z.looseObject({
  expires_after: z.optional(
    z.looseObject({
      anchor: z.optional(z.literal('created_at')),
      seconds: z.optional(z.int().check(z.gte(10), z.lte(7200))),
    }),
  ),
  session: z.optional(OaiSessionConfigIn),
});
export type OaiRelaySecretIn = z.infer<typeof OaiRelaySecretIn>;

