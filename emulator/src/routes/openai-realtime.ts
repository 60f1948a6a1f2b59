import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import * as z from 'zod/mini';
import { OaiClientSecretIn, OaiClientSecretOut, OaiSessionConfigIn, OfferBodyError, openaiEndpoints, readOfferBody, statusClass, type OaiSessionConfigIn as SessionConfigIn } from 'kb-voice/schemas';
import type { ServerContext } from '../http/server-context.js';
import { RealtimeOfferError } from '../realtime/index.js';
import { ClientSecretStore } from '../realtime/openai/secrets.js';
import { sleep } from '../time.js';
import { applySessionConfig, defaultSessionState, describeSession, UnsupportedConfigError, type SessionState } from '../realtime/openai/session-config.js';

/** Largest body `POST /v1/realtime/calls` reads (an SDP offer is a few KB). */
export const MAX_CALL_BODY_BYTES = 256 * 1024;
/** Largest body `POST /v1/realtime/client_secrets` reads. */
export const MAX_SECRET_BODY_BYTES = 64 * 1024;
/** Header naming the end user (OpenAI's safety identifier); it becomes the session's `user_identifier`. */
export const USER_HEADER = 'openai-safety-identifier';
/** Ids a caller may choose for the session (`?session_id=`, an emulator extension the relay uses for grants). */
const SESSION_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/** The `session_id` query parameter, when given. */
function chosenSessionId(c: Context): string | undefined {
  const id = c.req.query('session_id');
  if (id === undefined) return undefined;
  if (!SESSION_ID.test(id)) throw new OaiRequestError(400, 'invalid_value', 'session_id must be 1-128 characters of A-Z a-z 0-9 . _ ~ -', 'session_id');
  return id;
}

const CALLS_PATH = openaiEndpoints.OAI_CALLS.path;
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-expose-headers': 'Location',
  'access-control-max-age': '600',
};

/** An OpenAI-style error answer `{ error: { message, type, code, param } }`. */
class OaiRequestError extends Error {
  /** Seconds for `Retry-After` (503 at capacity). */
  retryAfterSeconds: number | undefined;
  constructor(readonly status: number, readonly code: string, message: string, readonly param: string | null = null, readonly type = 'invalid_request_error') {
    super(message);
  }
}

function errorResponse(err: OaiRequestError, headers: Record<string, string> = {}): Response {
  const body = { error: { message: err.message, type: err.type, code: err.code, param: err.param } };
  return new Response(JSON.stringify(body), {
    status: err.status,
    headers: {
      'content-type': 'application/json',
      ...(err.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
      ...(err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : {}),
      ...headers,
    },
  });
}

function bearer(c: Context): string {
  const m = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization')?.trim() ?? '');
  if (!m) throw new OaiRequestError(401, 'missing_api_key', 'You did not provide an API key: send Authorization: Bearer <key>.');
  return m[1]!;
}

function configFrom(value: unknown, param: string): SessionConfigIn {
  const parsed = z.safeParse(OaiSessionConfigIn, value);
  if (!parsed.success) throw new OaiRequestError(400, 'invalid_value', `${param}: ${z.prettifyError(parsed.error)}`, param);
  return parsed.data;
}

function applyOrThrow(state: SessionState, config: SessionConfigIn): SessionState {
  try {
    return applySessionConfig(state, config);
  } catch (err) {
    if (err instanceof UnsupportedConfigError) throw new OaiRequestError(400, 'unsupported_config', err.message, err.param);
    throw err;
  }
}

/** What the shared reader's refusals are in OpenAI's error codes. */
const OFFER_ERRORS: Record<OfferBodyError['code'], { status: number; code: string }> = {
  unsupported_type: { status: 415, code: 'unsupported_media_type' },
  unreadable: { status: 400, code: 'invalid_body' },
  missing_sdp: { status: 400, code: 'missing_required_parameter' },
  invalid_json: { status: 400, code: 'invalid_json' },
  invalid_session: { status: 400, code: 'invalid_value' },
};

/** The caller's offer and optional session part, from an `application/sdp` or multipart body (kb-voice's one reader, as the relay's). */
async function readCallBody(c: Context): Promise<{ sdp: string; session: SessionConfigIn | undefined }> {
  // The body is read whole before its size is judged (the app's own body limit bounds it): answering
  // before reading would make the client see a reset instead of the 413.
  const text = await c.req.text();
  let offer: { sdp: string; session: SessionConfigIn | undefined };
  try {
    offer = await readOfferBody(text, c.req.header('content-type') ?? '');
  } catch (error) {
    if (!(error instanceof OfferBodyError)) throw error;
    const { status, code } = OFFER_ERRORS[error.code];
    throw new OaiRequestError(status, code, error.message, error.param === 'body' ? null : error.param);
  }
  if (offer.sdp.length > MAX_CALL_BODY_BYTES) throw new OaiRequestError(413, 'body_too_large', `the offer exceeds ${MAX_CALL_BODY_BYTES} bytes`, 'sdp');
  return offer;
}

/**
 * The OpenAI-compatible realtime endpoints (CONTRACT.md): `POST /v1/realtime/client_secrets` mints an
 * `ek_…` for one robot (`session.model`) and end user (`OpenAI-Safety-Identifier`), and
 * `POST /v1/realtime/calls` answers an SDP offer (bearer `ek_…` or the API key) with a session
 * speaking the `oai-events` protocol, whose id (the `Location`'s last segment) is its `session_id`
 * in E11–E19. Errors use OpenAI's `{ error }` shape.
 */
export function registerOpenAIRealtimeRoutes(app: Hono, sc: ServerContext): ClientSecretStore {
  const secrets = new ClientSecretStore();
  const robotOrThrow = (robotId: string | undefined, param: string) => {
    if (!robotId) throw new OaiRequestError(400, 'missing_required_parameter', `${param} must name the robot (its ai_id)`, param);
    if (!sc.store.robots.get(robotId)) throw new OaiRequestError(404, 'model_not_found', `the robot ${robotId} does not exist`, param);
    return robotId;
  };

  app.post(openaiEndpoints.OAI_CLIENT_SECRETS.path, async (c) => {
    try {
      if (sc.faults.latencyMs > 0) await sleep(sc.faults.latencyMs);
      if (bearer(c) !== sc.apiKey) throw new OaiRequestError(401, 'invalid_api_key', 'Incorrect API key provided.');
      const text = await c.req.text();
      if (text.length > MAX_SECRET_BODY_BYTES) throw new OaiRequestError(413, 'body_too_large', `the body exceeds ${MAX_SECRET_BODY_BYTES} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new OaiRequestError(400, 'invalid_json', 'the body is not valid JSON');
      }
      const parsed = z.safeParse(OaiClientSecretIn, json);
      if (!parsed.success) throw new OaiRequestError(400, 'invalid_value', z.prettifyError(parsed.error));
      const robotId = robotOrThrow(parsed.data.session.model, 'session.model');
      const sessionId = chosenSessionId(c);
      if (sessionId && sc.store.sessions.get(sessionId)) throw new OaiRequestError(409, 'session_exists', `a session ${sessionId} already exists`, 'session_id');
      const session = applyOrThrow(defaultSessionState(`sess_${randomUUID().replace(/-/g, '')}`, robotId), parsed.data.session);
      const secret = secrets.mint({
        robotId,
        userIdentifier: c.req.header(USER_HEADER) ?? null,
        session,
        ...(sessionId ? { sessionId } : {}),
        ...(parsed.data.expires_after?.seconds !== undefined ? { ttlS: parsed.data.expires_after.seconds } : {}),
      });
      const body: OaiClientSecretOut = { value: secret.value, expires_at: secret.expiresAt, session: describeSession(secret.session) };
      return c.json(z.parse(OaiClientSecretOut, body), 200);
    } catch (err) {
      if (err instanceof OaiRequestError) return errorResponse(err);
      throw err;
    }
  });

  app.options(CALLS_PATH, (c) => {
    const requested = c.req.header('access-control-request-headers');
    return new Response(null, {
      status: 204,
      headers: { ...CORS, 'access-control-allow-headers': requested ?? 'authorization, content-type' },
    });
  });

  app.post(CALLS_PATH, async (c) => {
    try {
      if (sc.faults.latencyMs > 0) await sleep(sc.faults.latencyMs);
      const key = bearer(c);
      let robotId: string;
      let state: SessionState;
      let userIdentifier: string | null;
      const body = await readCallBody(c);
      let callId = chosenSessionId(c) ?? randomUUID();
      if (key === sc.apiKey) {
        // The server's own key: the session part must name the robot.
        robotId = robotOrThrow(body.session?.model, 'session.model');
        userIdentifier = c.req.header(USER_HEADER) ?? null;
        state = defaultSessionState(callId, robotId);
      } else {
        const check = secrets.check(key);
        if (!check.ok) {
          throw new OaiRequestError(401, check.reason === 'expired' ? 'expired_client_secret' : 'invalid_api_key', check.reason === 'expired' ? 'The client secret has expired.' : 'Incorrect API key provided.');
        }
        const { secret } = check;
        if (body.session?.model !== undefined && body.session.model !== secret.robotId) {
          throw new OaiRequestError(403, 'client_secret_robot_mismatch', `the client secret was minted for the robot ${secret.robotId}`, 'session.model');
        }
        robotId = robotOrThrow(secret.robotId, 'session.model');
        userIdentifier = secret.userIdentifier;
        if (secret.sessionId) callId = secret.sessionId;
        const { expiresAt: _expires, ...template } = secret.session;
        state = { ...template, id: callId };
      }
      if (body.session) state = applyOrThrow(state, body.session);
      let answer: { sdp: string };
      try {
        answer = await sc.realtime.handleOffer(robotId, { type: 'oai-call', sdp: body.sdp, session: state, userIdentifier });
      } catch (err) {
        if (!(err instanceof RealtimeOfferError)) throw err;
        const failure = new OaiRequestError(err.status === 422 ? 400 : err.status, err.code, err.message, err.status === 422 ? 'sdp' : null, statusClass(err.status) === 'server_error' ? 'server_error' : 'invalid_request_error');
        failure.retryAfterSeconds = err.retryAfterSeconds;
        throw failure;
      }
      return new Response(answer.sdp, {
        status: 201,
        headers: { ...CORS, 'content-type': 'application/sdp', location: `${CALLS_PATH}/${callId}` },
      });
    } catch (err) {
      if (err instanceof OaiRequestError) return errorResponse(err, CORS);
      throw err;
    }
  });

  return secrets;
}
