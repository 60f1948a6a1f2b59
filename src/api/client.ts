import * as z from 'zod/mini';
import {
  ChatCompletionChunk, endpoints, GenPromptStreamChunk,
  type AddLinksIn, type AddLinksOut, type AddLinksQuery, type ChatCompletionIn, type ChatCompletionOut,
  type DatasetConfigsIn, type DatasetConfigsOut, type DatasetFile, type DeleteFilesIn, type DeleteFilesOut,
  type Endpoint, type GenPromptIn, type GenPromptOut, type IntegrationPage, type IntegrationRule,
  type IntegrationsQuery, type MessageRatingIn, type MessageRatingOut, type MessageRatingQuery,
  type PdfHighlightIn, type PdfHighlightOut, type RealtimeAudioOut, type RealtimeAudioQuery,
  type RealtimeCostQuery, type RealtimeCostSummary, type RealtimeSessionCostList, type RealtimeSessionIn,
  type RealtimeSessionOut, type RealtimeUsage, type RealtimeUsageQuery, type RealtimeWarmupIn,
  type RealtimeWarmupOut, type ReferencesOut, type ReferencesQuery, type RefreshFilesIn, type RefreshFilesOut,
  type SessionDeleteOut, type SessionMessage, type SessionMessagePage, type SessionMessagesQuery,
} from '../schemas/index.js';
import { ApiError } from './errors.js';
import { paginate } from './paginate.js';
import { readSseData } from './sse.js';
import { Transport, type ApiClientOptions, type CallArgs } from './transport.js';

/** The validated response of an endpoint, as its table entry's schema outputs it. */
type Out<E extends Endpoint> = z.output<E['response']>;
/** What a call of `E` takes: path parameters, and the query and body its schemas accept (`never` when it has none). */
type Args<E extends Endpoint> = {
  params?: Record<string, string>;
  query?: (E extends { query: infer Q extends z.core.$ZodType } ? z.input<Q> : never) | undefined;
  body?: (E extends { body: infer B extends z.core.$ZodType } ? z.input<B> : never) | undefined;
};

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

/**
 * Creates the typed client for every endpoint of the service (E1–E20) plus realtime signaling.
 * Requests are validated before anything is sent (a bad call throws `ValidationError` with
 * `local: true`), responses after they arrive.
 *
 * On a server, pass `apiKey`. In a browser, point `baseUrl` at your relay and pass no key.
 */
export function createApiClient(options: ApiClientOptions) {
  const transport = new Transport(options);
  /** Calls `endpoint`; argument and result types come from its entry in the endpoint table. */
  const call = <const E extends Endpoint>(endpoint: E, args: Args<E>, opts?: CallOptions) =>
    transport.call(endpoint, { ...args, ...(opts?.signal ? { signal: opts.signal } : {}) }) as Promise<Out<E>>;
  /** As `call`, for an endpoint that may answer 204 with no body (`null`). */
  const callOrEmpty = <const E extends Endpoint>(endpoint: E, args: Args<E>, opts?: CallOptions) =>
    transport.call(endpoint, { ...args, ...(opts?.signal ? { signal: opts.signal } : {}) }) as Promise<Out<E> | null>;

  /** Streams an SSE endpoint, validating each data payload with `chunk`. */
  async function* stream<T>(endpoint: Endpoint, args: CallArgs, chunk: z.core.$ZodType<T>, opts?: CallOptions): AsyncGenerator<T> {
    const response = await transport.send(endpoint, { ...args, ...(opts?.signal ? { signal: opts.signal } : {}) });
    if (!response.body) throw new ApiError('invalid_response', `${endpoint.id}: the stream has no body`, { status: response.status });
    for await (const data of readSseData(response.body)) {
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch (cause) {
        throw new ApiError('invalid_response', `${endpoint.id}: a stream event is not JSON`, { status: response.status, body: data, cause });
      }
      const parsed = z.safeParse(chunk, json);
      if (!parsed.success) throw new ApiError('invalid_response', `${endpoint.id}: a stream event does not match the schema`, { status: response.status, body: json, cause: parsed.error });
      yield parsed.data;
    }
  }

  const realtime = {
    /** E1: pre-builds the robot's agent. Fire and forget after connecting; `success: false` means the warmup failed upstream. */
    warmup: (aiId: string, body?: RealtimeWarmupIn, opts?: CallOptions) =>
      call(endpoints.E1, { params: { ai_id: aiId }, body }, opts),
    /** Realtime signaling: sends the SDP offer (with its ICE candidates), returns the answer and the session id. */
    connect: (aiId: string, body: RealtimeSessionIn, opts?: CallOptions) =>
      call(endpoints.RS, { params: { ai_id: aiId }, body }, opts),
    /**
     * RT: PATCH of the realtime session resource (the 201's `Location`) with an
     * `application/trickle-ice-sdpfrag` body: trickled candidates, end-of-candidates or an ICE
     * restart. Resolves to the answer fragment of a restart (200), or null (204).
     */
    trickle: async (aiId: string, sessionId: string, fragment: string, opts?: CallOptions): Promise<string | null> => {
      const response = await transport.send(endpoints.RT, { params: { ai_id: aiId, session_id: sessionId }, body: fragment, ...(opts?.signal ? { signal: opts.signal } : {}) });
      return response.status === 204 ? null : await response.text();
    },
    /** E11: cost summary of the robot over a time window. */
    cost: (aiId: string, query?: RealtimeCostQuery, opts?: CallOptions) =>
      call(endpoints.E11, { params: { ai_id: aiId }, query }, opts),
    /** E12: cost per session. */
    sessionCosts: (aiId: string, query?: RealtimeCostQuery, opts?: CallOptions) =>
      call(endpoints.E12, { params: { ai_id: aiId }, query }, opts),
    /** E13: usage per session with totals. */
    usage: (aiId: string, query?: RealtimeUsageQuery, opts?: CallOptions) =>
      call(endpoints.E13, { params: { ai_id: aiId }, query }, opts),
    /** E14: presigned download URLs of a session's recorded audio segments (one when `segment_index` is given). */
    audio: (aiId: string, query: RealtimeAudioQuery, opts?: CallOptions) =>
      call(endpoints.E14, { params: { ai_id: aiId }, query }, opts),
  };

  const prompts = {
    /** E2: updates the robot's prompt information (marked unused by the service). */
    update: (aiId: string, body: GenPromptIn, opts?: CallOptions) =>
      call(endpoints.E2, { params: { ai_id: aiId }, body }, opts),
    /** E3: generates a robot prompt from a meta prompt in one response. */
    generate: (body: Omit<GenPromptIn, 'stream'> & { stream?: false }, opts?: CallOptions) =>
      call(endpoints.E3, { body }, opts),
    /** E3 with `stream: true`: the generated prompt as text chunks, as they arrive. */
    async *generateStream(body: Omit<GenPromptIn, 'stream'>, opts?: CallOptions): AsyncGenerator<string> {
      for await (const chunk of stream(endpoints.E3, { body: { ...body, stream: true } }, GenPromptStreamChunk, opts)) yield chunk.delta;
    },
  };

  const chat = {
    /** E10: OpenAI-compatible chat completion; `model` names the robot. */
    completions: (body: ChatCompletionIn & { stream?: false }, opts?: CallOptions) =>
      call(endpoints.E10, { body }, opts),
    /** E10 with `stream: true`: completion chunks as they arrive. */
    completionsStream: (body: ChatCompletionIn, opts?: CallOptions): AsyncGenerator<ChatCompletionChunk> =>
      stream(endpoints.E10, { body: { ...body, stream: true } }, ChatCompletionChunk, opts),
  };

  const sessions = {
    /** E19: one page of a session's messages. */
    messages: (aiId: string, query: SessionMessagesQuery, opts?: CallOptions) =>
      call(endpoints.E19, { params: { ai_id: aiId }, query }, opts),
    /** E19, every page: iterates over all of a session's messages. */
    allMessages: (aiId: string, query: SessionMessagesQuery, opts?: CallOptions): AsyncGenerator<SessionMessage> =>
      paginate((page) => sessions.messages(aiId, { ...query, page }, opts), query.page),
    /** E17: one message by id. */
    message: (aiId: string, messageId: string, opts?: CallOptions) =>
      call(endpoints.E17, { params: { ai_id: aiId, message_id: messageId } }, opts),
    /** E6: rates a message (1 good, -1 bad, 0 cleared), with optional feedback. */
    rate: (aiId: string, query: MessageRatingQuery, body?: MessageRatingIn, opts?: CallOptions) =>
      call(endpoints.E6, { params: { ai_id: aiId }, query, body }, opts),
    /**
     * E15: hard-deletes a session and all its data in the background. Resolves to the deletion
     * status, or `null` when the service ignored the request (204: another robot's session).
     */
    delete: (aiId: string, sessionId: string, opts?: CallOptions) =>
      callOrEmpty(endpoints.E15, { params: { ai_id: aiId, session_id: sessionId } }, opts),
    /** E18: the knowledge references behind an answer. */
    references: (aiId: string, query: ReferencesQuery, opts?: CallOptions) =>
      call(endpoints.E18, { params: { ai_id: aiId }, query }, opts),
  };

  const datasets = {
    /** E4: re-learns the given files. */
    refreshFiles: (datasetId: string, body: RefreshFilesIn, opts?: CallOptions) =>
      call(endpoints.E4, { params: { dataset_id: datasetId }, body }, opts),
    /** E5: adds links of one kind (`links_type`, default `website`). */
    addLinks: (datasetId: string, body: AddLinksIn, query?: AddLinksQuery, opts?: CallOptions) =>
      call(endpoints.E5, { params: { dataset_id: datasetId }, query, body }, opts),
    /** E7: deletes files from the dataset. */
    deleteFiles: (datasetId: string, body: DeleteFilesIn, opts?: CallOptions) =>
      call(endpoints.E7, { params: { dataset_id: datasetId }, body }, opts),
    /** E8: updates the dataset's configuration metadata. */
    updateConfigs: (datasetId: string, body: DatasetConfigsIn, opts?: CallOptions) =>
      call(endpoints.E8, { params: { dataset_id: datasetId }, body }, opts),
    /** E16: a file's metadata and learning state. */
    fileMetadata: (datasetId: string, fileId: string, opts?: CallOptions) =>
      call(endpoints.E16, { params: { dataset_id: datasetId, file_id: fileId } }, opts),
    /** E20: one page of integration rules. */
    integrations: (datasetId: string, query?: IntegrationsQuery, opts?: CallOptions) =>
      call(endpoints.E20, { params: { dataset_id: datasetId }, query }, opts),
    /** E20, every page. */
    allIntegrations: (datasetId: string, query: IntegrationsQuery = {}, opts?: CallOptions): AsyncGenerator<IntegrationRule> =>
      paginate((page) => datasets.integrations(datasetId, { ...query, page }, opts), query.page),
  };

  const pdf = {
    /** E9: highlight boxes of a text on a page of a stored PDF. */
    highlight: (body: PdfHighlightIn, opts?: CallOptions) => call(endpoints.E9, { body }, opts),
  };

  return { realtime, prompts, chat, sessions, datasets, pdf };
}

/** The client returned by {@link createApiClient}. */
export type ApiClient = ReturnType<typeof createApiClient>;
