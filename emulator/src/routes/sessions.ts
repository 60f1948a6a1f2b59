import type { Hono } from 'hono';
import { endpoints } from 'kb-voice/schemas';
import { parseTime } from '../time.js';
import { notFound } from '../http/errors.js';
import { messageOr404, publicMessage, robotOr404, sessionOr404 } from '../http/lookup.js';
import { comparator, pageOf } from '../http/paging.js';
import { route } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import type { MessageRecord } from '../store.js';

const MESSAGE_ORDER = {
  created_at: (m: MessageRecord) => (m.created_at ? parseTime(m.created_at) : null),
  rating: (m: MessageRecord) => m.rating,
  total_tokens: (m: MessageRecord) => m.total_tokens,
  first_response_time: (m: MessageRecord) => m.first_response_time,
};

/** E6, E15, E17, E18, E19. */
export function registerSessionRoutes(app: Hono, sc: ServerContext): void {
  route(app, sc, endpoints.E19, ({ params, query }) => {
    robotOr404(sc.store, params.ai_id);
    sessionOr404(sc.store, params.ai_id, query.session_id);
    const until = query.end_time ? parseTime(query.end_time) : Infinity;
    const sort = comparator(query.order_by, MESSAGE_ORDER, 'created_at');
    const items = sc.store.messages
      .where('session_id', query.session_id)
      .filter((m) => m.robot_id === params.ai_id && (!m.created_at || parseTime(m.created_at) <= until))
      .sort((a, b) => sort(a, b) || a.id.localeCompare(b.id))
      .map(publicMessage);
    return { json: pageOf(items, query.page, query.size) };
  });

  route(app, sc, endpoints.E17, ({ params }) => {
    robotOr404(sc.store, params.ai_id);
    return { json: publicMessage(messageOr404(sc.store, params.ai_id, params.message_id)) };
  });

  route(app, sc, endpoints.E18, ({ params, query }) => {
    robotOr404(sc.store, params.ai_id);
    const message = messageOr404(sc.store, params.ai_id, query.message_id);
    return { json: { message_id: message.id, references: Array.isArray(message.reference_list) ? message.reference_list : [] } };
  });

  route(app, sc, endpoints.E6, ({ params, query, body }) => {
    robotOr404(sc.store, params.ai_id);
    const message = messageOr404(sc.store, params.ai_id, query.message_id);
    if (message.session_id !== query.session_id) throw notFound('Message');
    const patch: Partial<MessageRecord> & Record<string, unknown> = { rating: query.rating === 0 ? null : query.rating };
    if (query.source) patch.feedback_source = query.source;
    if (body?.feedback_content !== undefined) patch.feedback_content = body.feedback_content;
    if (body?.feedback_metadata !== undefined) patch.feedback_metadata = body.feedback_metadata;
    return { json: publicMessage(sc.store.messages.patch(message.id, patch)!) };
  });

  // E15. An empty session id and another robot's session are ignored with 204 (spec E15).
  route(
    app, sc, endpoints.E15,
    ({ params, c }) => {
      if (params.session_id === '') return c.body(null, 204);
      const session = sc.store.sessions.get(params.session_id);
      if (!session) throw notFound('Session');
      if (session.robot_id !== params.ai_id) return c.body(null, 204);
      sc.realtime.endSession(session.id);
      sc.deletions.schedule(session.id);
      return { json: { session_id: session.id, status: 'deleting' } };
    },
    [
      { path: '/v1/:ai_id/sessions/', params: { session_id: '' } },
      { path: '/v1/:ai_id/sessions', params: { session_id: '' } },
    ],
  );
}
