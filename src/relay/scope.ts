import * as z from 'zod/mini';
import { endpoints, RealtimeCostSummary, RealtimeSessionCostList, RealtimeSessionOut, RealtimeUsage, SessionMessage, type Endpoint } from '../schemas/index.js';
import { scopeSessionCosts, scopeUsage, summarizeCosts } from './aggregate.js';
import { RelayError } from './errors.js';
import type { SessionGrants } from './grant.js';
import type { Reply } from './message.js';
import type { Answer } from './upstream.js';

/** What a route's user policy works with: the validated request and the upstream, for one caller of role `user`. */
export interface Forwarding {
  params: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: Record<string, unknown> | undefined;
  /** A non-JSON body as received (routes with `textBody`). */
  text: { type: string; text: string } | undefined;
  user: string;
  grants: SessionGrants;
  /** The relay's normalised prefix (for paths it hands back, e.g. a `Location`). */
  prefix: string;
  /** Calls the route's upstream path with a body of any type, a query and extra headers; non-2xx answers are thrown. */
  send(init: { body?: { type: string; text: string }; query?: URLSearchParams; headers?: Record<string, string> }): Promise<Answer>;
  /** Calls the route's upstream path with `body` (default: the validated one), or another endpoint; non-2xx answers are thrown. */
  call(body?: unknown, other?: { endpoint: Endpoint; params: Record<string, string>; query?: Record<string, unknown> }): Promise<Answer>;
  /** Returns a 2xx upstream answer to the caller, streamed through the secret guard. */
  passThrough(response: Answer): Promise<Reply>;
  /** Reads a 2xx upstream JSON answer (secret-scanned) and validates it with `schema`: `raw` as received, `value` parsed. */
  readJson<S extends z.core.$ZodType>(response: Answer, schema: S): Promise<{ raw: unknown; value: z.output<S> }>;
  /** A JSON answer made by the relay. */
  json(status: number, body: unknown): Reply;
}

/** How a route serves a caller of role `user` (see `SessionGrants` for the scheme). */
export type UserPolicy = (f: Forwarding) => Promise<Reply>;

const sessionNotFound = () => new RelayError(404, 'Session not found', 'the session is not granted to this user');
const messageNotFound = () => new RelayError(404, 'Message not found', 'the message is not in a session granted to this user');
const owns = async (f: Forwarding, sessionId: unknown) => typeof sessionId === 'string' && (await f.grants.verify(sessionId, f.user));

/**
 * The session records that carry the caller's identifier and a grant for it. Records, not ids: a
 * record labelled with another user stays out even when it repeats an id the caller owns.
 */
async function ownedRecords<T extends { session_id: string; user_identifier?: string | null | undefined }>(f: Forwarding, sessions: readonly T[]): Promise<Set<T>> {
  const checks = await Promise.all(sessions.map(async (s) => s.user_identifier === f.user && (await f.grants.verify(s.session_id, f.user))));
  return new Set(sessions.filter((_, i) => checks[i]));
}

/** A policy that requires the session named by `read` to be granted to the caller (else 404, no upstream call). */
const ownedSession =
  (read: (f: Forwarding) => unknown): UserPolicy =>
  async (f) => {
    if (!(await owns(f, read(f)))) throw sessionNotFound();
    return f.passThrough(await f.call());
  };

/** The user policies of the relay's routes. */
export const forUser = {
  /** E14, E19: `session_id` of the query must be granted. */
  sessionInQuery: ownedSession((f) => f.query?.session_id),
  /** E15 (and any route with `{session_id}` in its path). */
  sessionInPath: ownedSession((f) => f.params.session_id),

  /** RS: `user_identifier` forced; a new session gets a relay-minted id, a reconnect must name a granted one. */
  async signaling(f) {
    const out: Record<string, unknown> = { ...f.body, user_identifier: f.user };
    if (out.session_id === undefined) out.session_id = await f.grants.mint(f.user);
    else if (!(await owns(f, out.session_id))) throw sessionNotFound();
    const response = await f.call(out);
    const { raw, value } = await f.readJson(response, RealtimeSessionOut);
    // A session under another id would be unreachable for this user: an upstream fault.
    if (value.session_id !== out.session_id) throw new RelayError(502, 'Invalid upstream response', 'upstream ignored the granted session_id');
    return f.json(response.status, raw);
  },

  /** E1: `user_identifier` forced; a `session_id`, when given, must be granted. */
  async warmup(f) {
    const out: Record<string, unknown> = { ...f.body, user_identifier: f.user };
    if (out.session_id !== undefined && out.session_id !== null && !(await owns(f, out.session_id))) throw sessionNotFound();
    return f.passThrough(await f.call(out));
  },

  /** E6: the session must be granted and the message (checked upstream with E17) must belong to it. */
  async rating(f) {
    if (!(await owns(f, f.query?.session_id))) throw sessionNotFound();
    let check: Answer;
    try {
      check = await f.call(undefined, { endpoint: endpoints.E17, params: { ai_id: f.params.ai_id!, message_id: String(f.query!.message_id) } });
    } catch (error) {
      throw error instanceof RelayError && error.status === 404 ? messageNotFound() : error;
    }
    const { value } = await f.readJson(check, SessionMessage);
    if (value.session_id !== f.query!.session_id) throw messageNotFound();
    return f.passThrough(await f.call());
  },

  /** E17: the message is returned only if its session is granted. */
  async message(f) {
    const { raw, value } = await f.readJson(await f.call(), SessionMessage);
    if (!(await owns(f, value.session_id))) throw messageNotFound();
    return f.json(200, raw);
  },

  /** E12: sessions filtered to the caller's; counts and totals recomputed. */
  async sessionCosts(f) {
    const { value } = await f.readJson(await f.call(), RealtimeSessionCostList);
    return f.json(200, scopeSessionCosts(value, await ownedRecords(f, value.sessions)));
  },

  /** E13: as E12. */
  async usage(f) {
    const { value } = await f.readJson(await f.call(), RealtimeUsage);
    return f.json(200, scopeUsage(value, await ownedRecords(f, value.sessions)));
  },

  /** E11: rebuilt from the upstream summary and the caller's scoped E12 sessions (see `summarizeCosts`). */
  async costSummary(f) {
    const [summary, list] = await Promise.all([
      f.call().then((r) => f.readJson(r, RealtimeCostSummary)),
      f.call(undefined, { endpoint: endpoints.E12, params: f.params, ...(f.query ? { query: f.query } : {}) }).then((r) => f.readJson(r, RealtimeSessionCostList)),
    ]);
    const scoped = scopeSessionCosts(list.value, await ownedRecords(f, list.value.sessions));
    return f.json(200, summarizeCosts(summary.value, scoped));
  },
} satisfies Record<string, UserPolicy>;

