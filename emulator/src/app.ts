import { Hono } from 'hono';
import { DEFAULT_MAX_BODY_BYTES, limitBody } from './http/body-limit.js';
import { HttpError } from './http/errors.js';
import type { ServerContext } from './http/server-context.js';
import { openApiDocument } from './openapi.js';
import { RealtimeOfferError } from './realtime/index.js';
import { registerChatRoutes } from './routes/chat.js';
import { registerControlRoutes } from './routes/control.js';
import { registerDatasetRoutes } from './routes/datasets.js';
import { registerDocumentRoutes } from './routes/documents.js';
import { registerOpenAIRealtimeRoutes } from './routes/openai-realtime.js';
import { registerPromptRoutes } from './routes/prompts.js';
import { registerRealtimeRoutes } from './routes/realtime.js';
import { registerSessionRoutes } from './routes/sessions.js';

/**
 * The emulator's HTTP application: every endpoint of the table (E1–E20 and signaling), the
 * presigned audio downloads, the loopback-only control routes and `GET /openapi.json`. Errors are
 * JSON `{ detail }` (an array for 422), as the service answers them.
 */
export function createEmulatorApp(sc: ServerContext): Hono {
  const app = new Hono();
  app.use(limitBody(sc.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  registerControlRoutes(app, sc);
  registerRealtimeRoutes(app, sc);
  registerOpenAIRealtimeRoutes(app, sc);
  registerPromptRoutes(app, sc);
  registerChatRoutes(app, sc);
  registerSessionRoutes(app, sc);
  registerDatasetRoutes(app, sc);
  registerDocumentRoutes(app, sc);
  app.get('/openapi.json', (c) => c.json(openApiDocument(sc.baseUrl())));

  app.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  app.onError((error, c) => {
    if (error instanceof HttpError) {
      if (error.status === 401) c.header('www-authenticate', 'Bearer');
      return c.json({ detail: error.detail }, error.status as 400);
    }
    if (error instanceof RealtimeOfferError) {
      // A bad SDP is a validation problem of the body; other signaling failures keep their status.
      if (error.status === 422) return c.json({ detail: [{ loc: ['body', 'sdp'], msg: error.message, type: 'value_error' }] }, 422);
      if (error.retryAfterSeconds !== undefined) c.header('retry-after', String(error.retryAfterSeconds));
      return c.json({ detail: error.message }, error.status as 400);
    }
    console.error('[kb-voice emulator] unhandled error', error);
    return c.json({ detail: 'Internal Server Error' }, 500);
  });
  return app;
}
