import type * as z from 'zod/mini';
import { endpoints, sourcesRelayEndpoints, type Endpoint } from '../schemas/index.js';
import type { CallArgs } from './http.js';

/**
 * The client's methods as a table over the endpoint table: each is an endpoint and the order of its
 * positional arguments (`:name` a path parameter, `query`, `body`), the first `required` of them
 * required. Runtime methods and their types both come from it (`deriveMethods`, `MethodOf`): a new
 * endpoint is one line here.
 */
type Kind = `:${string}` | 'query' | 'body';

export interface MethodSpec<E extends Endpoint = Endpoint, L extends readonly Kind[] = readonly Kind[], N extends number = number> {
  readonly endpoint: E;
  readonly args: L;
  readonly required: N;
}

const spec = <const E extends Endpoint, const L extends readonly Kind[], const N extends number>(endpoint: E, args: L, required: N) =>
  ({ endpoint, args, required }) as MethodSpec<E, L, N>;

export const API_METHODS = {
  realtime: {
    /** E1: pre-builds the robot's agent. Fire and forget after connecting; `success: false` means the warmup failed upstream. */
    warmup: spec(endpoints.E1, [':ai_id', 'body'], 1),
    /** Realtime signaling: sends the SDP offer (with its ICE candidates), returns the answer and the session id. */
    connect: spec(endpoints.RS, [':ai_id', 'body'], 2),
    /** E11: cost summary of the robot over a time window. */
    cost: spec(endpoints.E11, [':ai_id', 'query'], 1),
    /** E12: cost per session. */
    sessionCosts: spec(endpoints.E12, [':ai_id', 'query'], 1),
    /** E13: usage per session with totals. */
    usage: spec(endpoints.E13, [':ai_id', 'query'], 1),
    /** E14: presigned download URLs of a session's recorded audio segments (one when `segment_index` is given). */
    audio: spec(endpoints.E14, [':ai_id', 'query'], 2),
  },
  prompts: {
    /** E2: updates the robot's prompt information (marked unused by the service). */
    update: spec(endpoints.E2, [':ai_id', 'body'], 2),
    /** E3: generates a robot prompt from a meta prompt in one response (`generateStream` streams it). */
    generate: spec(endpoints.E3, ['body'], 1),
  },
  chat: {
    /** E10: OpenAI-compatible chat completion; `model` names the robot (`completionsStream` streams it). */
    completions: spec(endpoints.E10, ['body'], 1),
  },
  sessions: {
    /** E19: one page of a session's messages. */
    messages: spec(endpoints.E19, [':ai_id', 'query'], 2),
    /** E17: one message by id. */
    message: spec(endpoints.E17, [':ai_id', ':message_id'], 2),
    /** E6: rates a message (1 good, -1 bad, 0 cleared), with optional feedback. */
    rate: spec(endpoints.E6, [':ai_id', 'query', 'body'], 2),
    /** E15: hard-deletes a session in the background; `null` when the service ignored the request (204: another robot's session). */
    delete: spec(endpoints.E15, [':ai_id', ':session_id'], 2),
    /** E18: the knowledge references behind an answer. */
    references: spec(endpoints.E18, [':ai_id', 'query'], 2),
  },
  datasets: {
    /** E4: re-learns the given files. */
    refreshFiles: spec(endpoints.E4, [':dataset_id', 'body'], 2),
    /** E5: adds links of one kind (`links_type`, default `website`). */
    addLinks: spec(endpoints.E5, [':dataset_id', 'body', 'query'], 2),
    /** E7: deletes files from the dataset. */
    deleteFiles: spec(endpoints.E7, [':dataset_id', 'body'], 2),
    /** E8: updates the dataset's configuration metadata. */
    updateConfigs: spec(endpoints.E8, [':dataset_id', 'body'], 2),
    /** E16: a file's metadata and learning state. */
    fileMetadata: spec(endpoints.E16, [':dataset_id', ':file_id'], 2),
    /** E20: one page of integration rules. */
    integrations: spec(endpoints.E20, [':dataset_id', 'query'], 1),
  },
  pdf: {
    /** E9: highlight boxes of a text on a page of a stored PDF. */
    highlight: spec(endpoints.E9, ['body'], 1),
    /** E9 through the relay: under the robot, naming the message (`message_id`) that cites the file (docs/relay.md, "Sources"). */
    highlightCited: spec(sourcesRelayEndpoints.E9, [':ai_id', 'query', 'body'], 3),
  },
} as const;

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request (the call rejects with the signal's reason). */
  signal?: AbortSignal;
}

type QueryIn<E> = E extends { query: infer Q extends z.core.$ZodType } ? z.input<Q> : never;
type BodyIn<E> = E extends { body: infer B extends z.core.$ZodType } ? z.input<B> : never;
type ArgOf<E, K> = K extends `:${string}` ? string : K extends 'query' ? QueryIn<E> : BodyIn<E>;
type Mapped<E, L extends readonly unknown[]> = { -readonly [I in keyof L]: ArgOf<E, L[I]> };
/** `[first N of L, the rest]`. */
type Split<L extends readonly unknown[], N extends number, Head extends unknown[] = []> = Head['length'] extends N
  ? [Head, L]
  : L extends readonly [infer H, ...infer T]
    ? Split<T, N, [...Head, H]>
    : [Head, L];

/** The validated response of an endpoint, as its table entry's schema outputs it. */
export type Out<E extends Endpoint> = z.output<E['response']>;

/** The method a spec describes: its positional arguments typed from the endpoint's schemas, then `CallOptions`. */
export type MethodOf<S> = S extends MethodSpec<infer E, infer L, infer N>
  ? (...args: [...Mapped<E, Split<L, N>[0]>, ...Partial<Mapped<E, Split<L, N>[1]>>, options?: CallOptions]) => Promise<E extends { empty: true } ? Out<E> | null : Out<E>>
  : never;

/** The methods of the table, group by group. */
export type DerivedMethods = { [G in keyof typeof API_METHODS]: { [M in keyof (typeof API_METHODS)[G]]: MethodOf<(typeof API_METHODS)[G][M]> } };

/** Makes the methods of `API_METHODS`, each one `call(endpoint, args)` with its positional arguments put in place. */
export function deriveMethods(call: (endpoint: Endpoint, args: CallArgs) => Promise<unknown>): DerivedMethods {
  const groups: Record<string, Record<string, unknown>> = {};
  for (const [group, methods] of Object.entries(API_METHODS)) {
    groups[group] = {};
    for (const [name, s] of Object.entries(methods) as [string, MethodSpec][]) {
      groups[group][name] = (...values: unknown[]) => {
        const args: CallArgs & { params: Record<string, string> } = { params: {} };
        s.args.forEach((kind, i) => {
          if (kind.startsWith(':')) args.params[kind.slice(1)] = values[i] as string;
          else if (values[i] !== undefined) args[kind as 'query' | 'body'] = values[i];
        });
        const signal = (values[s.args.length] as CallOptions | undefined)?.signal;
        if (signal) args.signal = signal;
        return call(s.endpoint, args);
      };
    }
  }
  return groups as DerivedMethods;
}
