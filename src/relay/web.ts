import { mergeHeaders, ReceivedReply, type Body, type Incoming, type Reply, type UpstreamClient } from './message.js';
import type { UpstreamFetch } from './types.js';

/**
 * The web edge of the relay: `Request` in, `Response` out (the `fetch` handler), and a standard
 * `fetch` as an upstream client (edge runtimes) or built from one (`createNodeFetch`).
 */

/** A web stream as the relay's body type (not every runtime makes streams async-iterable). */
export async function* iterate(stream: ReadableStream<Uint8Array>): Body {
  const reader = stream.getReader();
  let done = false;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
    done = true;
  } finally {
    // Not awaited: a teed branch's cancel settles only when every branch is cancelled.
    if (!done) void reader.cancel().catch(() => {});
  }
}

/**
 * The relay's body type as a web stream with backpressure; cancelling it ends the source. With
 * `highWaterMark` 0 nothing is read before the consumer asks (a request body the relay may refuse
 * unread stays unread, so it can be drained).
 */
export function toStream(body: Body, highWaterMark = 1): ReadableStream<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  }, { highWaterMark });
}

/**
 * What a Node host passes as `env` to a fetch handler (node.ts for a relay that is only a `fetch`,
 * @hono/node-server's `{ incoming }`): the raw request target, which `Request.url` has normalised
 * already, and, when the adapter cannot hand the body over, why.
 */
interface AdapterEnv {
  incoming?: { url?: unknown; originalUrl?: unknown };
  relayBodyError?: unknown;
}

/** A web `Request` as the relay's request. */
export function fromRequest(request: Request, env: unknown): Incoming {
  const url = new URL(request.url);
  const incoming = (env as AdapterEnv | undefined)?.incoming;
  const raw = typeof incoming?.originalUrl === 'string' ? incoming.originalUrl : typeof incoming?.url === 'string' ? incoming.url : undefined;
  const bodyError = (env as AdapterEnv | undefined)?.relayBodyError;
  return {
    method: request.method,
    target: raw ?? url.pathname + url.search,
    origin: url.origin,
    header: (name) => request.headers.get(name),
    body: typeof bodyError === 'string' ? bodyError : request.body && iterate(request.body),
    onClose(listener) {
      request.signal.addEventListener('abort', listener, { once: true });
      return () => request.signal.removeEventListener('abort', listener);
    },
    request: () => request,
  };
}

/** The relay's reply as a web `Response`. */
export function toResponse(reply: Reply): Response {
  const { body } = reply;
  const headers = body instanceof Uint8Array ? mergeHeaders(reply.headers, { 'content-length': String(body.byteLength) }) : reply.headers;
  return new Response(body === null ? null : body instanceof Uint8Array ? (body as Uint8Array<ArrayBuffer>) : toStream(body), { status: reply.status, headers });
}

/** The upstream client a fetch function was made from (`toFetch`), kept on the function itself so a relay given it uses the upstream client directly. */
const UPSTREAM_CLIENT = Symbol.for('kb-voice.relay.upstream-client');
type MadeFetch = UpstreamFetch & { [UPSTREAM_CLIENT]?: UpstreamClient };

/** An upstream client as a standard `fetch(url, init)` (string or byte bodies, record headers, `init.signal`). */
export function toFetch(client: UpstreamClient): UpstreamFetch {
  const f: UpstreamFetch = async (url, init) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw new Error('aborted');
    const control: { abort?: () => void } = {};
    const abort = () => control.abort?.();
    signal?.addEventListener('abort', abort, { once: true });
    const body = init.body as string | Uint8Array | null | undefined;
    try {
      const reply = await client({ url, method: init.method ?? 'GET', headers: { ...(init.headers as Record<string, string> | undefined) }, body: body ?? undefined }, control);
      const headers = new Headers();
      reply.headers.forEach((value, name) => headers.append(name, value));
      const out = reply.body;
      return new Response(out instanceof Uint8Array ? (out as Uint8Array<ArrayBuffer>) : out && toStream(out), { status: reply.status, headers });
    } catch (error) {
      signal?.removeEventListener('abort', abort);
      throw error;
    }
  };
  (f as MadeFetch)[UPSTREAM_CLIENT] = client;
  return f;
}

/** The upstream client of a fetch function: the one it was made from, or the fetch itself with an `AbortController`. */
export function fromFetch(fetch: UpstreamFetch): UpstreamClient {
  return (
    (fetch as MadeFetch)[UPSTREAM_CLIENT] ??
    (async (request, control) => {
      const controller = new AbortController();
      control.abort = () => controller.abort();
      const response = await fetch(request.url, { method: request.method, headers: request.headers, signal: controller.signal, redirect: 'manual', ...(request.body !== undefined ? { body: request.body as string | Uint8Array<ArrayBuffer> } : {}) });
      const { body } = response;
      return new ReceivedReply(response.status, response.headers, body && iterate(body), () => controller.abort());
    })
  );
}
