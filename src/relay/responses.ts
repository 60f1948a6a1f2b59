import type { ValidationErrorItem } from '../schemas/index.js';

/** A JSON response made by the relay itself; never cached. */
export function json(status: number, body: unknown, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json');
  h.set('cache-control', 'no-store');
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** The project's generic error shape `{ detail: "<message>" }`. */
export const errorResponse = (status: number, detail: string, headers?: HeadersInit) => json(status, { detail }, headers);

/** The spec's 422 shape. */
export const validationResponse = (detail: ValidationErrorItem[]) => json(422, { detail });

/**
 * Passes a body stream through chunk by chunk (no buffering) but errors it before the chunk that
 * would complete one of `secrets`, so a secret echoed by the upstream never fully reaches the
 * caller. The last `longest - 1` bytes are kept to catch a secret split across chunks.
 */
export function guardStream(body: ReadableStream<Uint8Array>, secrets: readonly string[], onLeak: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const needles = secrets.filter(Boolean).map((s) => encoder.encode(s));
  if (needles.length === 0) return body;
  const keep = Math.max(...needles.map((n) => n.length)) - 1;
  let tail = new Uint8Array(0);
  const reader = body.getReader();
  // A pull source rather than pipeThrough(TransformStream): one read per caller read, less overhead.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      const window = new Uint8Array(tail.length + value.length);
      window.set(tail);
      window.set(value, tail.length);
      if (needles.some((n) => indexOf(window, n) >= 0)) {
        onLeak();
        await reader.cancel().catch(() => {});
        return controller.error(new Error('Upstream response withheld'));
      }
      tail = window.slice(Math.max(0, window.length - keep));
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
