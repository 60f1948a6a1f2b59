import * as z from 'zod/mini';
import {
  ChatCompletionChunk, endpoints, GenPromptStreamChunk,
  type ChatCompletionIn, type Endpoint, type GenPromptIn, type IntegrationRule, type IntegrationsQuery,
  type SessionMessage, type SessionMessagesQuery,
} from '../schemas/index.js';
import { ApiError } from './errors.js';
import { deriveMethods, type CallOptions } from './methods.js';
import { paginate } from './paginate.js';
import { readSseData } from './sse.js';
import { Transport, type ApiClientOptions, type CallArgs } from './transport.js';

export type { CallOptions };

const withSignal = (args: CallArgs, opts?: CallOptions): CallArgs => (opts?.signal ? { ...args, signal: opts.signal } : args);

/**
 * Creates the typed client for every endpoint of the service (E1–E20) plus realtime signaling.
 * The methods are derived from the endpoint table (`API_METHODS` in methods.ts: argument and result
 * types from each endpoint's schemas); streams, pagination and the trickle PATCH are built on them.
 * Requests are validated before anything is sent (a bad call throws `ValidationError` with
 * `local: true`), responses after they arrive.
 *
 * On a server, pass `apiKey`. In a browser, point `baseUrl` at your relay and pass no key.
 */
export function createApiClient(options: ApiClientOptions) {
  const transport = new Transport(options);
  const derived = deriveMethods((endpoint, args) => transport.call(endpoint, args));

  /** Streams an SSE endpoint, validating each data payload with `chunk`. */
  async function* stream<T>(endpoint: Endpoint, args: CallArgs, chunk: z.core.$ZodType<T>): AsyncGenerator<T> {
    const response = await transport.send(endpoint, args);
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
    ...derived.realtime,
    /**
     * RT: PATCH of the realtime session resource (the 201's `Location`) with an
     * `application/trickle-ice-sdpfrag` body: trickled candidates, end-of-candidates or an ICE
     * restart. Resolves to the answer fragment of a restart (200), or null (204).
     */
    trickle: async (aiId: string, sessionId: string, fragment: string, opts?: CallOptions): Promise<string | null> => {
      const response = await transport.send(endpoints.RT, withSignal({ params: { ai_id: aiId, session_id: sessionId }, body: fragment }, opts));
      return response.status === 204 ? null : await response.text();
    },
  };

  const prompts = {
    ...derived.prompts,
    /** E3 with `stream: true`: the generated prompt as text chunks, as they arrive. */
    async *generateStream(body: Omit<GenPromptIn, 'stream'>, opts?: CallOptions): AsyncGenerator<string> {
      for await (const chunk of stream(endpoints.E3, withSignal({ body: { ...body, stream: true } }, opts), GenPromptStreamChunk)) yield chunk.delta;
    },
  };

  const chat = {
    ...derived.chat,
    /** E10 with `stream: true`: completion chunks as they arrive. */
    completionsStream: (body: ChatCompletionIn, opts?: CallOptions): AsyncGenerator<ChatCompletionChunk> =>
      stream(endpoints.E10, withSignal({ body: { ...body, stream: true } }, opts), ChatCompletionChunk),
  };

  const sessions = {
    ...derived.sessions,
    /** E19, every page: iterates over all of a session's messages. */
    allMessages: (aiId: string, query: SessionMessagesQuery, opts?: CallOptions): AsyncGenerator<SessionMessage> =>
      paginate((page) => derived.sessions.messages(aiId, { ...query, page }, opts), query.page),
  };

  const datasets = {
    ...derived.datasets,
    /** E20, every page. */
    allIntegrations: (datasetId: string, query: IntegrationsQuery = {}, opts?: CallOptions): AsyncGenerator<IntegrationRule> =>
      paginate((page) => derived.datasets.integrations(datasetId, { ...query, page }, opts), query.page),
  };

  return { realtime, prompts, chat, sessions, datasets, pdf: derived.pdf };
}

/** The client returned by {@link createApiClient}. */
export type ApiClient = ReturnType<typeof createApiClient>;
