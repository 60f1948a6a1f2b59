import {
  ChatCompletionChunk, endpoints, GenPromptStreamChunk,
  type ChatCompletionIn, type ChatCompletionOut, type GenPromptIn, type GenPromptOut, type IntegrationRule, type IntegrationsQuery,
  type RealtimeSessionIn, type RealtimeSessionOut, type SessionMessage, type SessionMessagesQuery,
} from '../schemas/index.js';
import { ApiError } from './errors.js';
import { Http, type ApiClientOptions, type CallArgs } from './http.js';
import { deriveMethods, type CallOptions } from './methods.js';
import { paginate } from './paginate.js';
import { followLocation, SignalingResources } from './resources.js';
import { readStream, type StreamShape } from './stream.js';

export type { CallOptions };

const withSignal = (args: CallArgs, opts?: CallOptions): CallArgs => (opts?.signal ? { ...args, signal: opts.signal } : args);

/** E3 streamed: `{ delta }` pieces; a whole answer is its `prompt` in one piece; `text/plain` is the text itself. */
const genPromptStream: StreamShape<GenPromptStreamChunk> = {
  chunk: GenPromptStreamChunk,
  whole: (out: GenPromptOut) => (out.prompt ? [{ delta: out.prompt }] : []),
  text: (piece) => ({ delta: piece }),
};

/** E10 streamed: completion chunks; a whole completion is one chunk carrying each choice's message. */
const chatStream: StreamShape<ChatCompletionChunk> = {
  chunk: ChatCompletionChunk,
  whole: (out: ChatCompletionOut) => [{
    id: out.id, object: 'chat.completion.chunk', created: out.created, model: out.model,
    choices: out.choices.map((c) => ({ index: c.index, delta: c.message, finish_reason: c.finish_reason ?? null })),
  }],
};

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
  const http = new Http(options);
  const derived = deriveMethods((endpoint, args) => http.call(endpoint, args));
  const resources = new SignalingResources();

  const realtime = {
    ...derived.realtime,
    /**
     * Realtime signaling: sends the SDP offer, returns the answer and the session id. The 201's
     * `Location` (relative or absolute, same origin only) is where `trickle` sends that session's
     * PATCHes, as WHIP says; without one they go to the path CONTRACT.md fixes.
     */
    connect: async (aiId: string, body: RealtimeSessionIn, opts?: CallOptions): Promise<RealtimeSessionOut> => {
      const { value, response, url } = await http.exchange(endpoints.RS, withSignal({ params: { ai_id: aiId }, body }, opts));
      const answer = value as RealtimeSessionOut;
      resources.remember(aiId, answer.session_id, followLocation(response.headers.get('location'), response.url || url, 'RS'));
      return answer;
    },
    /**
     * RT: PATCH of the realtime session resource (the 201's `Location`) with an
     * `application/trickle-ice-sdpfrag` body: trickled candidates, end-of-candidates or an ICE
     * restart. Resolves to the answer fragment of a restart (200), or null (204).
     */
    trickle: async (aiId: string, sessionId: string, fragment: string, opts?: CallOptions): Promise<string | null> => {
      const url = resources.get(aiId, sessionId);
      const { response, text } = await http.text(endpoints.RT, withSignal({ params: { ai_id: aiId, session_id: sessionId }, body: fragment, ...(url ? { url } : {}) }, opts));
      return response.status === 204 ? null : text;
    },
  };

  const prompts = {
    ...derived.prompts,
    /** E3 with `stream: true`: the generated prompt as text chunks, as they arrive. */
    async *generateStream(body: Omit<GenPromptIn, 'stream'>, opts?: CallOptions): AsyncGenerator<string> {
      const opened = await http.open(endpoints.E3, withSignal({ body: { ...body, stream: true } }, opts));
      for await (const chunk of readStream(opened, endpoints.E3, genPromptStream)) yield chunk.delta;
    },
  };

  const chat = {
    ...derived.chat,
    /** E10 with `stream: true`: completion chunks as they arrive. */
    async *completionsStream(body: ChatCompletionIn, opts?: CallOptions): AsyncGenerator<ChatCompletionChunk> {
      const opened = await http.open(endpoints.E10, withSignal({ body: { ...body, stream: true } }, opts));
      yield* readStream(opened, endpoints.E10, chatStream);
    },
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
