import { endpoints, RealtimeCostSummary, RealtimeSessionCostList, RealtimeUsage } from '../../schemas/index.js';
import { scopeSessionCosts, scopeUsage, summarizeCosts } from '../aggregate.js';
import { RelayError } from '../errors.js';
import type { Policy, Routed } from '../route-types.js';
import { forward, json, readJson } from './forward.js';
import { userHeaderValue } from './user-header.js';

/**
 * How routes serve a caller of role `user` (see `SessionGrants` for the scheme): a session named by
 * the request must be granted to them (else 404 and nothing forwarded); lists and reports are cut to
 * their sessions. Reports (E11–E13) forward a bounded window (`reportWindow`: a default when the
 * caller names none, 422 when wider than the maximum) and read at most `maxUpstreamJsonBytes` of the
 * answer, so one user's report costs what the upstream's answer for that window costs, and its
 * `start_time`/`end_time` come from the user's own sessions, never from other users' activity.
 */

export const sessionNotFound = () => new RelayError(404, 'Session not found', 'the session is not granted to this user');
export const owns = async (ctx: Routed, sessionId: unknown) => typeof sessionId === 'string' && (await ctx.services.grants.verify(sessionId, ctx.caller.userIdentifier, ctx.match.params.ai_id!));

/** Whether a session record is labelled with the caller (their identifier, or its header form on the OpenAI-compatible routes). */
const labelledWith = (user: string) => {
  // The OpenAI-compatible routes name the user in a header, encoded when not plain ASCII (user-header.ts).
  const headerForm = userHeaderValue(user);
  return (s: unknown) => {
    const label = typeof s === 'object' && s !== null ? (s as { user_identifier?: unknown }).user_identifier : undefined;
    return label === user || label === headerForm;
  };
};

/**
 * A report's parsed JSON with its `sessions` cut to the records labelled with the caller, before
 * validation: a user's report then validates (and verifies) their sessions only, not every user's
 * of the robot, and nothing else of those is ever returned. The top level is validated as before;
 * anything that is not an object with a `sessions` array is left for the schema to refuse.
 */
const labelledOnly =
  (ctx: Routed) =>
  (raw: unknown): unknown => {
    if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { sessions?: unknown }).sessions)) return raw;
    const report = raw as { sessions: unknown[] };
    // Our own freshly parsed object: cut in place (no copy of the report).
    report.sessions = report.sessions.filter(labelledWith(ctx.caller.userIdentifier));
    return report;
  };

/**
 * The session records that carry the caller's identifier and a grant for it. Records, not ids: a
 * record labelled with another user stays out even when it repeats an id the caller owns. Only
 * records labelled with the caller are verified (one HMAC each).
 */
async function ownedRecords<T extends { session_id: string; user_identifier?: string | null | undefined }>(ctx: Routed, sessions: readonly T[]): Promise<Set<T>> {
  const user = ctx.caller.userIdentifier;
  const robot = ctx.match.params.ai_id!;
  const labelled = sessions.filter(labelledWith(user));
  if (labelled.length === 0) return new Set();
  const checks = await Promise.all(labelled.map((s) => ctx.services.grants.verify(s.session_id, user, robot)));
  return new Set(labelled.filter((_, i) => checks[i]));
}

/** A policy that requires the session named by `read` to be granted to the caller (else 404, no upstream call). */
const ownedSession =
  (read: (ctx: Routed) => unknown): Policy =>
  async (ctx) => {
    if (!(await owns(ctx, read(ctx)))) throw sessionNotFound();
    return forward(ctx);
  };

/** The user policies of the v1 routes (RS's is in realtime.ts, the OpenAI dialect's in openai.ts). */
export const forUser = {
  /** E14, E19: `session_id` of the query must be granted. */
  sessionInQuery: ownedSession((ctx) => ctx.input.query?.session_id),
  /** RT (any route with `{session_id}` in its path). */
  sessionInPath: ownedSession((ctx) => ctx.input.params.session_id),

  /** E15: as `sessionInPath`; a deleted session gives its slot of `maxSessionsPerUser` back. */
  async deleteSession(ctx) {
    const sessionId = ctx.input.params.session_id!;
    if (!(await owns(ctx, sessionId))) throw sessionNotFound();
    const answer = await forward(ctx);
    ctx.services.slots.releaseSession(ctx.caller.userIdentifier, sessionId);
    return answer;
  },

  /** E1: `user_identifier` forced; a `session_id`, when given, must be granted. */
  async warmup(ctx) {
    const out: Record<string, unknown> = { ...ctx.input.body, user_identifier: ctx.caller.userIdentifier };
    if (out.session_id !== undefined && out.session_id !== null && !(await owns(ctx, out.session_id))) throw sessionNotFound();
    return forward(ctx, { json: out });
  },

  /** E12: sessions filtered to the caller's; counts and totals recomputed. */
  async sessionCosts(ctx) {
    const { value } = await readJson(ctx, await forward(ctx, { query: reportWindow(ctx) }), RealtimeSessionCostList, labelledOnly(ctx));
    return json(ctx, 200, scopeSessionCosts(value, await ownedRecords(ctx, value.sessions)));
  },

  /** E13: as E12. */
  async usage(ctx) {
    const { value } = await readJson(ctx, await forward(ctx, { query: reportWindow(ctx) }), RealtimeUsage, labelledOnly(ctx));
    return json(ctx, 200, scopeUsage(value, await ownedRecords(ctx, value.sessions)));
  },

  /** E11: rebuilt from the upstream summary and the caller's scoped E12 sessions over the same window (see `summarizeCosts`). */
  async costSummary(ctx) {
    const query = reportWindow(ctx);
    const [summary, list] = await Promise.all([
      forward(ctx, { query }).then((r) => readJson(ctx, r, RealtimeCostSummary)),
      forward(ctx, { endpoint: endpoints.E12, query }).then((r) => readJson(ctx, r, RealtimeSessionCostList, labelledOnly(ctx))),
    ]);
    const scoped = scopeSessionCosts(list.value, await ownedRecords(ctx, list.value.sessions));
    return json(ctx, 200, summarizeCosts(summary.value, scoped));
  },
} satisfies Record<string, Policy>;

const DAY_MS = 86_400_000;
const windowError = (msg: string, at: string) => new RelayError(422, [{ loc: ['query', at], msg, type: 'value_error' }], `report window refused: ${msg}`);

/**
 * The report window a `user` may ask for: `end_time` defaults to now, `start_time` to
 * `reportWindow.defaultDays` before it; a window longer than `reportWindow.maxDays`, or one that ends
 * before it starts, is a 422. The query keeps its other fields (E11/E12's `model`).
 */
export function reportWindow(ctx: Routed, now = Date.now()): Record<string, unknown> {
  const { defaultDays, maxDays } = ctx.services.reports;
  const query = ctx.input.query ?? {};
  const end = typeof query.end_time === 'string' ? Date.parse(query.end_time) : now;
  const start = typeof query.start_time === 'string' ? Date.parse(query.start_time) : end - defaultDays * DAY_MS;
  if (!(end >= start)) throw windowError('end_time must not be before start_time', 'end_time');
  if (end - start > maxDays * DAY_MS) throw windowError(`the window is at most ${maxDays} days`, 'start_time');
  // A bound the caller gave goes up as written; a default one as UTC ISO.
  return { ...query, start_time: query.start_time ?? iso(start), end_time: query.end_time ?? iso(end) };
}

/** `new Date(ms).toISOString()`, remembering the last two: under load many reports share a default window's millisecond. */
const iso = (() => {
  let a = NaN;
  let aText = '';
  let b = NaN;
  let bText = '';
  return (ms: number): string => {
    if (ms === a) return aText;
    if (ms === b) return bText;
    b = a;
    bText = aText;
    a = ms;
    return (aText = new Date(ms).toISOString());
  };
})();
