import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** Default cap on a request body (1 MiB): the largest JSON the API takes (an SDP offer, E10 history) is far smaller. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Refuses a request body above `maxBytes` with 413 `{ detail }`, as the relay does: a larger
 * `Content-Length` before anything is read, a chunked body as soon as it passes the cap, so an
 * oversized upload is never held in memory.
 *
 * A request with neither `Transfer-Encoding` nor a non-zero `Content-Length` has no body (RFC 9112
 * §6.3) and goes straight on: hono's `bodyLimit` asks for `request.body`, which on
 * @hono/node-server builds the whole web `Request` (an `AbortSignal` and a `FinalizationRegistry`
 * entry each, kept until a full collection): two thirds of what a GET promoted to the old
 * generation, and a visible part of its CPU (bench 3).
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => c.json({ detail: `Request body exceeds ${maxBytes} bytes` }, 413),
  });
  return (c, next) => {
    const headers = c.req.raw.headers;
    if (!headers.has('transfer-encoding') && (headers.get('content-length') ?? '0').trim() === '0') return next();
    return limit(c, next);
  };
}
