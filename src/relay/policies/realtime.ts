import { RealtimeSessionOut } from '../../schemas/index.js';
import { RelayError } from '../errors.js';
import type { Policy, Routed } from '../route-types.js';
import { matchRoute } from '../router.js';
import type { Answer } from '../upstream.js';
import { forward, json, readJson } from './forward.js';
import { owns, sessionNotFound } from './scope.js';

/**
 * Realtime signaling (RS). The 201's `Location` names the session resource (RT) on the upstream; the
 * caller gets it under the relay's prefix, where its PATCHes (trickle ICE, ICE restart) are served.
 * Only a path the relay itself serves as RT is handed back.
 */
function rewriteLocation(ctx: Routed, answer: Answer): void {
  const location = answer.status === 201 ? answer.headers.get('location') : null;
  const { prefix, table } = ctx.services;
  if (location?.startsWith('/') && matchRoute('PATCH', `${prefix}${location}`, prefix, table)?.id === 'RT') ctx.headers.location = `${prefix}${location}`;
}

/** RS for an admin: the offer forwarded as validated. */
export const signalingAsAdmin: Policy = async (ctx) => {
  const answer = await forward(ctx);
  rewriteLocation(ctx, answer);
  return answer;
};

/**
 * RS for a user: `user_identifier` forced; a new session gets a relay-minted id and takes one of the
 * user's `maxSessionsPerUser` slots (given back when the signaling fails). A reconnect must name a
 * granted id; it takes a slot too unless this instance holds a live one for that session: the
 * service creates a session under an id it does not know (one deleted with E15, or expired), so a
 * granted id is not proof of a session already counted.
 */
export const signalingAsUser: Policy = async (ctx) => {
  const user = ctx.caller.userIdentifier;
  const out: Record<string, unknown> = { ...ctx.input.body, user_identifier: user };
  const fresh = out.session_id === undefined;
  if (!fresh && !(await owns(ctx, out.session_id))) throw sessionNotFound();
  const { slots, grants } = ctx.services;
  const hold = fresh ? slots.take(user) : slots.holds(user, out.session_id as string) ? undefined : slots.take(user, out.session_id as string);
  try {
    if (fresh) out.session_id = hold!.sessionId = await grants.mint(user, ctx.match.params.ai_id!);
    const answer = await forward(ctx, { json: out });
    rewriteLocation(ctx, answer);
    const { raw, value } = await readJson(ctx, answer, RealtimeSessionOut);
    // A session under another id would be unreachable for this user: an upstream fault.
    if (value.session_id !== out.session_id) throw new RelayError(502, 'Invalid upstream response', 'upstream ignored the granted session_id');
    return json(ctx, answer.status, raw);
  } catch (error) {
    if (hold) slots.release(user, hold);
    throw error;
  }
};
