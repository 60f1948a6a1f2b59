import { readFile } from 'node:fs/promises';
import type { Hono } from 'hono';
import { endpoints, fillPath, parseSdpFragment, SDPFRAG_CONTENT_TYPE, type AudioSegment } from 'kb-voice/schemas';
import { costSummary, sessionCosts, usage, type Window } from '../aggregate.js';
import { parseTime } from '../time.js';
import { HttpError, invalid, notFound } from '../http/errors.js';
import { robotOr404, sessionOr404 } from '../http/lookup.js';
import { route } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import type { AudioRecord } from '../store.js';

/** Path a recorded segment is downloaded from (signed by E14). */
export const audioPath = (sessionId: string, segmentIndex: number) => `/audio/${encodeURIComponent(sessionId)}/${segmentIndex}.wav`;

/** Rejects a window whose end comes before its start. */
function checkWindow(window: Window): Window {
  if (window.start_time && window.end_time && parseTime(window.end_time) < parseTime(window.start_time)) {
    throw invalid(['query', 'end_time'], 'end_time must not be before start_time');
  }
  return window;
}

/** E1, realtime signaling, E11–E14 and the presigned audio downloads. */
export function registerRealtimeRoutes(app: Hono, sc: ServerContext): void {
  route(app, sc, endpoints.E1, async ({ params }) => {
    robotOr404(sc.store, params.ai_id);
    // Upstream failures are swallowed: the answer is 200 with success=false (spec E1 rule 3).
    const success = await sc.agents.warmup(params.ai_id).catch(() => false);
    return { json: { success } };
  });

  route(app, sc, endpoints.RS, async ({ params, body, c }) => {
    robotOr404(sc.store, params.ai_id);
    const answer = await sc.realtime.handleOffer(params.ai_id, body);
    // The session resource, where trickled candidates and ICE restarts go (RT).
    c.header('Location', fillPath(endpoints.RT.path, { ai_id: params.ai_id, session_id: answer.session_id }));
    return { json: answer };
  });

  route(app, sc, endpoints.RT, async ({ params, body }) => {
    robotOr404(sc.store, params.ai_id);
    const fragment = parseSdpFragment(body);
    if ('error' in fragment) throw invalid(['body'], `Invalid ${SDPFRAG_CONTENT_TYPE}: ${fragment.error}`);
    const answer = await sc.realtime.handlePatch(params.ai_id, params.session_id, fragment);
    if (answer === null) return new Response(null, { status: 204 });
    return new Response(answer, { status: 200, headers: { 'content-type': SDPFRAG_CONTENT_TYPE } });
  });

  route(app, sc, endpoints.E11, ({ params, query }) => {
    const robot = robotOr404(sc.store, params.ai_id);
    return { json: costSummary(sc.store, robot, checkWindow(query), query.model) };
  });

  route(app, sc, endpoints.E12, ({ params, query }) => {
    const robot = robotOr404(sc.store, params.ai_id);
    return { json: sessionCosts(sc.store, robot, checkWindow(query), query.model) };
  });

  route(app, sc, endpoints.E13, ({ params, query }) => {
    const robot = robotOr404(sc.store, params.ai_id);
    return { json: usage(sc.store, robot, checkWindow(query)) };
  });

  route(app, sc, endpoints.E14, ({ params, query }) => {
    robotOr404(sc.store, params.ai_id);
    const session = sessionOr404(sc.store, params.ai_id, query.session_id);
    let records = sc.store.audio.where('session_id', session.id).sort((a, b) => a.segment_index - b.segment_index);
    if (query.segment_index !== undefined) {
      records = records.filter((a) => a.segment_index === query.segment_index);
      if (records.length === 0) throw notFound(`Audio segment ${query.segment_index}`);
    }
    const now = Date.now();
    const segments: AudioSegment[] = records.map((a: AudioRecord) => {
      const signed = sc.presigner.sign(audioPath(session.id, a.segment_index), now);
      return {
        segment_index: a.segment_index,
        url: `${sc.baseUrl()}${signed.pathWithQuery}`,
        expires_at: signed.expiresAt.toISOString(),
        duration_ms: a.duration_ms,
        content_type: 'audio/wav',
      };
    });
    return { json: { session_id: session.id, segments } };
  });

  // The presigned download itself: a plain GET with no credential but the signature.
  app.get('/audio/:session_id/:file{[0-9]+\\.wav}', async (c) => {
    const url = new URL(c.req.url);
    const check = sc.presigner.verify(url.pathname, url.search.slice(1));
    if (!check.ok) throw new HttpError(403, check.reason === 'expired' ? 'Request has expired' : 'Signature does not match');
    const index = Number(c.req.param('file').replace(/\.wav$/, ''));
    const record = sc.store.audio.where('session_id', c.req.param('session_id')).find((a) => a.segment_index === index);
    if (!record || sc.store.sessions.get(record.session_id)?.deleting) throw notFound('Audio segment');
    const bytes = await readFile(record.file).catch(() => {
      throw notFound('Audio segment');
    });
    return new Response(bytes, {
      status: 200,
      headers: { 'content-type': 'audio/wav', 'content-length': String(bytes.length), 'cache-control': 'private, max-age=60' },
    });
  });
}
