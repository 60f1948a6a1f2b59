import { OaiClientSecretOut, OfferBodyError, readOfferBody, type OaiRelaySecretIn } from '../../schemas/index.js';
import { RelayError } from '../errors.js';
import type { Policy, Routed } from '../route-types.js';
import type { SessionHold } from '../session-slots.js';
import type { Answer } from '../upstream.js';
import { forward, json, readJson } from './forward.js';
import { USER_HEADER, userHeaderValue } from './user-header.js';

/** Longest lifetime of a client secret the relay mints (10 minutes), whatever the caller asks. */
export const MAX_SECRET_TTL_S = 600;

/** Session fields a browser may set by default (paths into `session`): the voice, the transcription language, turn detection. */
export const DEFAULT_OPENAI_SESSION_FIELDS = ['audio.output.voice', 'audio.input.transcription.language', 'audio.input.turn_detection'] as const;
/** Session fields no option can open to a browser: they replace the robot's behaviour or send its data elsewhere. */
export const NEVER_OPENAI_SESSION_FIELDS = ['instructions', 'tools', 'tool_choice', 'prompt', 'tracing'] as const;

/** `openaiSessionFields` checked and split into paths, once per relay (a forbidden field throws at `createRelay`). */
export function openaiSessionPaths(extra: readonly string[] = []): string[][] {
  const all = [...new Set([...DEFAULT_OPENAI_SESSION_FIELDS, ...extra])];
  return all.map((field) => {
    const path = field.split('.');
    if (path.some((p) => p === '' || p === '__proto__' || p === 'constructor' || p === 'prototype')) throw new TypeError(`Relay option openaiSessionFields: invalid field ${JSON.stringify(field)}`);
    if ((NEVER_OPENAI_SESSION_FIELDS as readonly string[]).includes(path[0]!) || path[0] === 'model' || path[0] === 'type') throw new TypeError(`Relay option openaiSessionFields: ${path[0]} is set by the relay or the robot, never by a browser`);
    return path;
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The allowed fields of the caller's session (the rest dropped), pinned to the robot of the path (another robot: 422). */
function pinnedSession(ctx: Routed, session: Record<string, unknown> | undefined): Record<string, unknown> {
  const robot = ctx.input.params.ai_id!;
  if (session?.model !== undefined && session.model !== robot) {
    throw new RelayError(422, [{ loc: ['body', 'session', 'model'], msg: `must be the robot of the path (${robot}) or absent`, type: 'value_error' }], 'session.model names another robot');
  }
  const out: Record<string, unknown> = {};
  if (session) {
    for (const path of ctx.services.openaiSessionFields) {
      let from: unknown = session;
      for (const key of path) from = isRecord(from) && Object.hasOwn(from, key) ? from[key] : undefined;
      if (from === undefined) continue;
      let to = out;
      for (const key of path.slice(0, -1)) to = (isRecord(to[key]) ? to[key] : (to[key] = {})) as Record<string, unknown>;
      to[path.at(-1)!] = from;
    }
  }
  return { ...out, type: 'realtime', model: robot };
}

/** A new session for the caller on this robot: a relay-granted id, and one of a user's `maxSessionsPerUser` slots. */
async function newSession(ctx: Routed): Promise<{ sessionId: string; hold: SessionHold | undefined }> {
  const user = ctx.caller.userIdentifier;
  const hold = ctx.caller.role === 'user' ? ctx.services.slots.take(user) : undefined;
  const sessionId = await ctx.services.grants.mint(user, ctx.input.params.ai_id!);
  if (hold) hold.sessionId = sessionId;
  return { sessionId, hold };
}

/** Runs the upstream part of a new session; its slot is given back when that fails. */
async function holding<T>(ctx: Routed, hold: SessionHold | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (hold) ctx.services.slots.release(ctx.caller.userIdentifier, hold);
    throw error;
  }
}

/**
 * `POST {prefix}/v1/robots/{ai_id}/realtime/client_secrets` → the table's upstream
 * (`openaiEndpoints.OAI_CLIENT_SECRETS`): the secret is minted for the caller (their identifier as
 * `OpenAI-Safety-Identifier`, whatever the request says), for the robot of the path, living at most
 * {@link MAX_SECRET_TTL_S}, and bound to a relay-granted session id, so the call it starts is the
 * caller's like a v1 session. The body is rebuilt from an allowlist: `expires_after` and the
 * session fields of `openaiSessionFields`; everything else (instructions, tools, prompt, tracing,
 * top-level `metadata` or `include`...) is dropped. Admins and users alike.
 */
export const openaiClientSecret: Policy = async (ctx) => {
  const body = (ctx.input.body ?? {}) as OaiRelaySecretIn;
  const seconds = Math.min(body.expires_after?.seconds ?? MAX_SECRET_TTL_S, MAX_SECRET_TTL_S);
  const session = pinnedSession(ctx, body.session);
  const { sessionId, hold } = await newSession(ctx);
  return holding(ctx, hold, async () => {
    const answer = await forward(ctx, {
      json: { expires_after: { anchor: 'created_at', seconds }, session },
      query: new URLSearchParams({ session_id: sessionId }),
      headers: { [USER_HEADER]: userHeaderValue(ctx.caller.userIdentifier) },
    });
    const { raw } = await readJson(ctx, answer, OaiClientSecretOut);
    return json(ctx, 200, raw);
  });
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
  const form = new FormData();
  form.set('sdp', offer.sdp);
  form.set('session', JSON.stringify(pinnedSession(ctx, offer.session)));
  const encoded = new Response(form);
  const text = { type: encoded.headers.get('content-type')!, text: await encoded.text() };
  const { sessionId, hold } = await newSession(ctx);
  return holding(ctx, hold, async (): Promise<Answer> => {
    const answer = await forward(ctx, {
      text,
      query: new URLSearchParams({ session_id: sessionId }),
      headers: { [USER_HEADER]: userHeaderValue(ctx.caller.userIdentifier) },
    });
    const callId = answer.headers.get('location')?.split('/').pop();
    if (callId !== sessionId) {
      answer.cancel();
      answer.settle();
      throw new RelayError(502, 'Invalid upstream response', 'upstream did not create the call under the granted id');
    }
    ctx.headers.location = `${ctx.services.prefix}/v1/robots/${encodeURIComponent(ctx.input.params.ai_id!)}/realtime/calls/${callId}`;
    return answer;
  });
};
