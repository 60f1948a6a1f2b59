import * as z from 'zod/mini';
import { OaiClientSecretOut, OaiSessionConfigIn, type OaiRelaySecretIn } from '../schemas/index.js';
import { RelayError } from './errors.js';
import type { Forwarding, UserPolicy } from './scope.js';

/** Longest lifetime of a client secret the relay mints (10 minutes), whatever the caller asks. */
export const MAX_SECRET_TTL_S = 600;
/** Header that names the end user to the OpenAI-compatible upstream. */
const USER_HEADER = 'openai-safety-identifier';

/** The caller's session configuration, pinned to the robot of the path (another robot: 422). */
function pinnedSession(f: Forwarding, session: Record<string, unknown> | undefined): Record<string, unknown> {
  const robot = f.params.ai_id!;
  if (session?.model !== undefined && session.model !== robot) {
    throw new RelayError(422, [{ loc: ['body', 'session', 'model'], msg: `must be the robot of the path (${robot}) or absent`, type: 'value_error' }], 'session.model names another robot');
  }
  return { ...session, type: 'realtime', model: robot };
}

/**
 * `POST {prefix}/v1/robots/{ai_id}/realtime/client_secrets` → upstream `/v1/realtime/client_secrets`:
 * the secret is minted for the caller (their identifier as `OpenAI-Safety-Identifier`, whatever the
 * request says), for the robot of the path, living at most {@link MAX_SECRET_TTL_S}, and bound to a
 * relay-granted session id, so the call it starts is the caller's like a v1 session.
 */
export const openaiClientSecret: UserPolicy = async (f) => {
  const body = (f.body ?? {}) as OaiRelaySecretIn;
  const seconds = Math.min(body.expires_after?.seconds ?? MAX_SECRET_TTL_S, MAX_SECRET_TTL_S);
  const upstreamBody = { ...body, expires_after: { anchor: 'created_at', seconds }, session: pinnedSession(f, body.session) };
  const sessionId = await f.grants.mint(f.user);
  const response = await f.send({
    body: { type: 'application/json', text: JSON.stringify(upstreamBody) },
    query: new URLSearchParams({ session_id: sessionId }),
    headers: { [USER_HEADER]: f.user },
  });
  const { raw } = await f.readJson(response, OaiClientSecretOut);
  return f.json(200, raw);
};

/** The offer and optional session part of a unified-interface request (`application/sdp` or multipart). */
async function readOffer(raw: { type: string; text: string } | undefined): Promise<{ sdp: string; session: Record<string, unknown> | undefined }> {
  // The route's textBody already refused other content types (415) and an empty body (422).
  const type = (raw?.type ?? '').split(';')[0]!.trim().toLowerCase();
  if (!raw) throw new RelayError(422, [{ loc: ['body'], msg: 'Field required', type: 'missing' }], 'no offer');
  if (type === 'application/sdp') return { sdp: raw.text, session: undefined };
  let form: FormData;
  try {
    form = await new Response(raw.text, { headers: { 'content-type': raw.type } }).formData();
  } catch (error) {
    throw new RelayError(400, 'Unreadable multipart body', 'the multipart body could not be parsed', {}, error);
  }
  const part = async (name: string) => {
    const value = form.get(name);
    return value === null ? undefined : typeof value === 'string' ? value : await value.text();
  };
  const sdp = await part('sdp');
  if (!sdp) throw new RelayError(422, [{ loc: ['body', 'sdp'], msg: 'Field required', type: 'missing' }], 'multipart without an sdp part');
  const sessionText = await part('session');
  if (sessionText === undefined) return { sdp, session: undefined };
  let json: unknown;
  try {
    json = JSON.parse(sessionText);
  } catch (error) {
    throw new RelayError(422, [{ loc: ['body', 'session'], msg: 'JSON decode error', type: 'json_invalid' }], 'session part is not JSON', {}, error);
  }
  const parsed = z.safeParse(OaiSessionConfigIn, json);
  if (!parsed.success) throw new RelayError(422, [{ loc: ['body', 'session'], msg: z.prettifyError(parsed.error), type: 'value_error' }], 'invalid session part');
  return { sdp, session: parsed.data };
}

/**
 * `POST {prefix}/v1/robots/{ai_id}/realtime/calls` → upstream `/v1/realtime/calls` (unified
 * interface): the offer (size-capped like every relay body) goes up as multipart with the session
 * pinned to the robot, the caller's identifier and a relay-granted call id; the SDP answer comes back
 * with `Location: {prefix}/v1/robots/{ai_id}/realtime/calls/{call_id}`.
 */
export const openaiCall: UserPolicy = async (f) => {
  const offer = await readOffer(f.text);
  const sessionId = await f.grants.mint(f.user);
  const form = new FormData();
  form.set('sdp', offer.sdp);
  form.set('session', JSON.stringify(pinnedSession(f, offer.session)));
  const encoded = new Response(form);
  const response = await f.send({
    body: { type: encoded.headers.get('content-type')!, text: await encoded.text() },
    query: new URLSearchParams({ session_id: sessionId }),
    headers: { [USER_HEADER]: f.user },
  });
  const callId = response.headers.get('location')?.split('/').pop();
  if (callId !== sessionId) {
    response.cancel();
    throw new RelayError(502, 'Invalid upstream response', 'upstream did not create the call under the granted id');
  }
  const answer = await f.passThrough(response);
  return { ...answer, headers: { ...answer.headers, location: `${f.prefix}/v1/robots/${encodeURIComponent(f.params.ai_id!)}/realtime/calls/${callId}` } };
};
