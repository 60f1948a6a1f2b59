import { OaiClientSecretOut, OfferBodyError, readOfferBody, type OaiRelaySecretIn } from '../schemas/index.js';
import { RelayError } from './errors.js';
import { forward, json, readJson, type Policy, type Routed } from './stages/forward.js';

/** Longest lifetime of a client secret the relay mints (10 minutes), whatever the caller asks. */
export const MAX_SECRET_TTL_S = 600;
/** Header that names the end user to the OpenAI-compatible upstream. */
const USER_HEADER = 'openai-safety-identifier';

/** The caller's session configuration, pinned to the robot of the path (another robot: 422). */
function pinnedSession(ctx: Routed, session: Record<string, unknown> | undefined): Record<string, unknown> {
  const robot = ctx.input.params.ai_id!;
  if (session?.model !== undefined && session.model !== robot) {
    throw new RelayError(422, [{ loc: ['body', 'session', 'model'], msg: `must be the robot of the path (${robot}) or absent`, type: 'value_error' }], 'session.model names another robot');
  }
  return { ...session, type: 'realtime', model: robot };
}

/**
 * `POST {prefix}/v1/robots/{ai_id}/realtime/client_secrets` → the table's upstream
 * (`openaiEndpoints.OAI_CLIENT_SECRETS`): the secret is minted for the caller (their identifier as
 * `OpenAI-Safety-Identifier`, whatever the request says), for the robot of the path, living at most
 * {@link MAX_SECRET_TTL_S}, and bound to a relay-granted session id, so the call it starts is the
 * caller's like a v1 session. Admins and users alike.
 */
export const openaiClientSecret: Policy = async (ctx) => {
  const body = (ctx.input.body ?? {}) as OaiRelaySecretIn;
  const seconds = Math.min(body.expires_after?.seconds ?? MAX_SECRET_TTL_S, MAX_SECRET_TTL_S);
  const sessionId = await ctx.config.grants.mint(ctx.caller.userIdentifier);
  const answer = await forward(ctx, {
    json: { ...body, expires_after: { anchor: 'created_at', seconds }, session: pinnedSession(ctx, body.session) },
    query: new URLSearchParams({ session_id: sessionId }),
    headers: { [USER_HEADER]: ctx.caller.userIdentifier },
  });
  const { raw } = await readJson(ctx, answer, OaiClientSecretOut);
  return json(ctx, 200, raw);
};

/** The offer and session part through the shared reader; its refusals in the relay's terms. */
async function readOffer(ctx: Routed) {
  // The route's textBody already refused other content types (415) and an empty body (422).
  const { text } = ctx.input;
  try {
    return await readOfferBody(text!.text, text!.type);
  } catch (error) {
    if (!(error instanceof OfferBodyError)) throw error;
    if (error.code === 'unreadable' || error.code === 'unsupported_type') throw new RelayError(400, 'Unreadable multipart body', error.message, {}, error);
    const type = error.code === 'missing_sdp' ? 'missing' : error.code === 'invalid_json' ? 'json_invalid' : 'value_error';
    const msg = error.code === 'missing_sdp' ? 'Field required' : error.code === 'invalid_json' ? 'JSON decode error' : error.message;
    throw new RelayError(422, [{ loc: ['body', error.param], msg, type }], error.message, {}, error);
  }
}

/**
 * `POST {prefix}/v1/robots/{ai_id}/realtime/calls` → the table's upstream (`openaiEndpoints.OAI_CALLS`,
 * unified interface): the offer (size-capped like every relay body) goes up as multipart with the
 * session pinned to the robot, the caller's identifier and a relay-granted call id; the SDP answer
 * comes back with `Location: {prefix}/v1/robots/{ai_id}/realtime/calls/{call_id}` (this route's own
 * rewrite). Admins and users alike.
 */
export const openaiCall: Policy = async (ctx) => {
  const offer = await readOffer(ctx);
  const sessionId = await ctx.config.grants.mint(ctx.caller.userIdentifier);
  const form = new FormData();
  form.set('sdp', offer.sdp);
  form.set('session', JSON.stringify(pinnedSession(ctx, offer.session)));
  const encoded = new Response(form);
  const answer = await forward(ctx, {
    text: { type: encoded.headers.get('content-type')!, text: await encoded.text() },
    query: new URLSearchParams({ session_id: sessionId }),
    headers: { [USER_HEADER]: ctx.caller.userIdentifier },
  });
  const callId = answer.headers.get('location')?.split('/').pop();
  if (callId !== sessionId) {
    answer.cancel();
    answer.settle();
    throw new RelayError(502, 'Invalid upstream response', 'upstream did not create the call under the granted id');
  }
  ctx.headers.location = `${ctx.config.prefix}/v1/robots/${encodeURIComponent(ctx.input.params.ai_id!)}/realtime/calls/${callId}`;
  return answer;
};
