import type { ValidationErrorItem } from '../schemas/index.js';
import type { UpstreamResponse } from './upstream.js';

/**
 * An upstream body the relay passes through unread: written straight from the upstream stream by
 * the Node adapter, or wrapped in a web stream by `toResponse`. `scanner` withholds any secret.
 */
export interface PassThroughBody {
  upstream: UpstreamResponse;
  secrets: readonly string[];
  onLeak(): void;
}

/**
 * What the relay answers, before it becomes a web `Response` (`toResponse`) or is written to a Node
 * response directly (serveRelay). Header names are lower case. Building undici `Response` objects
 * only at the edge keeps the Node path free of them.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string | null | PassThroughBody,
  ) {}
}

/** The web `Response` of a reply; a pass-through body streams through `guardStream`. */
export function toResponse(reply: Reply): Response {
  const { body } = reply;
  if (body === null || typeof body === 'string') return new Response(body, { status: reply.status, headers: reply.headers });
  const stream = body.upstream.stream();
  return new Response(stream && guardStream(stream, body.secrets, body.onLeak), { status: reply.status, headers: reply.headers });
}

/** A JSON response made by the relay itself; never cached. */
export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return new Reply(status, { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store' }, JSON.stringify(body));
}

/** The project's generic error shape `{ detail: "<message>" }`. */
export const errorResponse = (status: number, detail: string, headers?: Record<string, string>) => json(status, { detail }, headers);

/** The spec's 422 shape. */
export const validationResponse = (detail: ValidationErrorItem[]) => json(422, { detail });

/**
 * Finds a secret in a byte stream read chunk by chunk. The last `longest - 1` bytes are kept to
 * catch a secret split across chunks.
 */
export class SecretScanner {
  readonly #needles: Uint8Array[];
  readonly #keep: number;
  #tail = new Uint8Array(0);

  constructor(secrets: readonly string[]) {
    const encoder = new TextEncoder();
    this.#needles = secrets.filter(Boolean).map((s) => encoder.encode(s));
    this.#keep = this.#needles.length ? Math.max(...this.#needles.map((n) => n.length)) - 1 : 0;
  }

  get active(): boolean {
    return this.#needles.length > 0;
  }

  /** Whether `chunk`, after the bytes seen before it, completes a secret. */
  leaks(chunk: Uint8Array): boolean {
    let window = chunk;
    if (this.#tail.length) {
      window = new Uint8Array(this.#tail.length + chunk.length);
      window.set(this.#tail);
      window.set(chunk, this.#tail.length);
    }
    if (this.#needles.some((n) => indexOf(window, n) >= 0)) return true;
    this.#tail = window.slice(Math.max(0, window.length - this.#keep));
    return false;
  }
}

/**
 * Passes a body stream through chunk by chunk (no buffering) but errors it before the chunk that
 * would complete one of `secrets`, so a secret echoed by the upstream never fully reaches the
 * caller.
 */
export function guardStream(body: ReadableStream<Uint8Array>, secrets: readonly string[], onLeak: () => void): ReadableStream<Uint8Array> {
  const scanner = new SecretScanner(secrets);
  if (!scanner.active) return body;
  const reader = body.getReader();
  // A pull source rather than pipeThrough(TransformStream): one read per caller read, less overhead.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (scanner.leaks(value)) {
        onLeak();
        await reader.cancel().catch(() => {});
        return controller.error(new Error('Upstream response withheld'));
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0];
  for (let i = haystack.indexOf(first!); i >= 0 && i + needle.length <= haystack.length; i = haystack.indexOf(first!, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
