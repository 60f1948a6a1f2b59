import * as z from 'zod/mini';
import { endpoints, fillPath, objectToQuery, RealtimeCostSummary, RealtimeSessionCostList, RealtimeSessionOut, RealtimeUsage, SessionMessage } from '../schemas/index.js';
import { scopeSessionCosts, scopeUsage, summarizeCosts } from './aggregate.js';
import type { Forwarder } from './forward.js';
import type { SessionGrants } from './grant.js';
import { errorResponse, json, type Reply } from './responses.js';
import type { RouteMatch } from './routes.js';
import { UpstreamFailure } from './upstream.js';

/** A request that passed the allowlist and validation: path, query and body in validated form. */
export interface ValidatedRequest {
  request: Request;
  match: RouteMatch;
  params: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: Record<string, unknown> | undefined;
}

const sessionNotFound = () => errorResponse(404, 'Session not found');
const messageNotFound = () => errorResponse(404, 'Message not found');

/**
 * Serves a caller of role `user` (see `SessionGrants` for the scheme):
 *
 * - RS: `user_identifier` is forced to the caller's; a new session gets a relay-minted id, a
 *   reconnect must name an id granted to the caller.
 * - E1: `user_identifier` forced; a `session_id`, when given, must be granted to the caller.
 * - E14, E19, E6, E15: the named session must be granted to the caller, else 404 without any upstream
 *   call; E6 also checks (upstream, E17) that the message belongs to that session.
 * - E17: the message is fetched and returned only if its session is granted to the caller.
 * - E12, E13: sessions filtered to the caller's `user_identifier` and valid grants; counts and
 *   totals recomputed. E11: rebuilt from the filtered E12 sessions (see `summarizeCosts`).
 */
export async function serveUser(v: ValidatedRequest, user: string, grants: SessionGrants, upstream: Forwarder): Promise<Reply> {
  const { request, match, params, query, body } = v;
  const { endpoint } = match;
  const path = fillPath(endpoint.path, params);
  const owns = (sessionId: unknown) => typeof sessionId === 'string' && grants.verify(sessionId, user);
  const send = (b: unknown = body) => upstream.send(request, endpoint.method, path, query && objectToQuery(query), b);

  switch (match.id) {
    case 'RS': {
      const out: Record<string, unknown> = { ...body, user_identifier: user };
      if (out.session_id === undefined) out.session_id = await grants.mint(user);
      else if (!(await owns(out.session_id))) return sessionNotFound();
      const result = await upstream.readJson(await send(out), RealtimeSessionOut);
      if ('error' in result) return result.error;
      // A session under another id would be unreachable for this user: treat as an upstream fault.
      if (result.value.session_id !== out.session_id) throw new UpstreamFailure('invalid_response', new Error('upstream ignored the granted session_id'));
      return json(result.status, result.raw);
    }
    case 'E1': {
      const out: Record<string, unknown> = { ...(body ?? (z.parse(endpoints.E1.body, {}) as Record<string, unknown>)), user_identifier: user };
      if (out.session_id !== undefined && out.session_id !== null && !(await owns(out.session_id))) return sessionNotFound();
      return upstream.passThrough(await send(out));
    }
    case 'E14':
    case 'E19':
      if (!(await owns(query?.session_id))) return sessionNotFound();
      return upstream.passThrough(await send());
    case 'E15':
      if (!(await owns(params.session_id))) return sessionNotFound();
      return upstream.passThrough(await send());
    case 'E6': {
      if (!(await owns(query?.session_id))) return sessionNotFound();
      const messagePath = fillPath(endpoints.E17.path, { ai_id: params.ai_id!, message_id: String(query!.message_id) });
      const check = await upstream.readJson(await upstream.send(request, 'GET', messagePath, undefined, undefined), SessionMessage);
      if ('error' in check) return check.error.status === 404 ? messageNotFound() : check.error;
      if (check.value.session_id !== query!.session_id) return messageNotFound();
      return upstream.passThrough(await send());
    }
    case 'E17': {
      const result = await upstream.readJson(await send(), SessionMessage);
      if ('error' in result) return result.error;
      if (!(await owns(result.value.session_id))) return messageNotFound();
      return json(result.status, result.raw);
    }
    case 'E12': {
      const result = await upstream.readJson(await send(), RealtimeSessionCostList);
      if ('error' in result) return result.error;
      return json(200, scopeSessionCosts(result.value, await ownedRecords(result.value.sessions, user, grants)));
    }
    case 'E13': {
      const result = await upstream.readJson(await send(), RealtimeUsage);
      if ('error' in result) return result.error;
      return json(200, scopeUsage(result.value, await ownedRecords(result.value.sessions, user, grants)));
    }
    case 'E11': {
      const listPath = fillPath(endpoints.E12.path, params);
      const [summary, list] = await Promise.all([
        send().then((c) => upstream.readJson(c, RealtimeCostSummary)),
        upstream.send(request, 'GET', listPath, query && objectToQuery(query), undefined).then((c) => upstream.readJson(c, RealtimeSessionCostList)),
      ]);
      if ('error' in summary) return summary.error;
      if ('error' in list) return list.error;
      const scoped = scopeSessionCosts(list.value, await ownedRecords(list.value.sessions, user, grants));
      return json(200, summarizeCosts(summary.value, scoped));
    }
  }
}

/**
 * The session records that carry the caller's identifier and a grant for it. Records, not ids: a
 * record labelled with another user stays out even when it repeats an id the caller owns.
 */
async function ownedRecords<T extends { session_id: string; user_identifier?: string | null | undefined }>(sessions: readonly T[], user: string, grants: SessionGrants): Promise<Set<T>> {
  const checks = await Promise.all(sessions.map(async (s) => s.user_identifier === user && (await grants.verify(s.session_id, user))));
  return new Set(sessions.filter((_, i) => checks[i]));
}
