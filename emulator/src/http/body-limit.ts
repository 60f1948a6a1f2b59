import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** Default cap on a request body (1 MiB): the largest JSON the API takes (an SDP offer, E10 history) is far smaller. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Refuses a request body above `maxBytes` with 413 `{ detail }`, as the relay does: a larger
 * `Content-Length` before anything is read, a chunked body as soon as it passes the cap, so an
 * oversized upload is never held in memory.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => c.json({ detail: `Request body exceeds ${maxBytes} bytes` }, 413),
  });
}
