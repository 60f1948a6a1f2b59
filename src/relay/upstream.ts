import { onCallerGone } from './internal.js';

/** Why an upstream call produced no usable response. */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: 'timeout' | 'network' | 'aborted' | 'invalid_response',
    cause?: unknown,
  ) {
    super(`upstream ${kind}`, { cause });
    this.name = 'UpstreamFailure';
  }
}

/**
 * An abort flag with listeners. Cheaper than an `AbortController` per request; the `AbortSignal` is
 * made only for a transport that needs one (fetch).
 */
export class Abort {
  #aborted = false;
  #listeners: (() => void)[] = [];
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const l of listeners) l();
  }

  /** Calls `listener` on abort (at once if already aborted); returns its removal. */
  on(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return () => {};
    }
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }
}

/** One request to the upstream, as the relay builds it. Header names are lower case. */
export interface UpstreamRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  abort: Abort;
}

/** A Node readable the Node adapter can pipe without web streams (an `IncomingMessage`). */
export interface NodeBodySource {
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(error?: Error): unknown;
}

/** An upstream answer whose body is read once: as text, as a web stream, or (Node) piped directly. */
export interface UpstreamResponse {
  readonly status: number;
  /** A response header (lower-case name); repeated headers joined with `, ` as `Headers.get` does. */
  header(name: string): string | null;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** Discards the body. */
  cancel(): void;
  /** The body as a web stream, or null when there is none. */
  stream(): ReadableStream<Uint8Array> | null;
  /** The body as a Node stream, when the transport is `node:http` (fast path of the Node adapter). */
  readonly node?: NodeBodySource | undefined;
}

/** Sends one upstream request. */
export type UpstreamTransport = (request: UpstreamRequest) => Promise<UpstreamResponse>;

/** A transport over any fetch function (edge runtimes, the `fetch` option). */
export function fetchTransport(fetchImpl: (request: Request) => Promise<Response>): UpstreamTransport {
  return async ({ method, url, headers, body, abort }) => {
    const response = await fetchImpl(new Request(url, { method, headers, signal: abort.signal, redirect: 'manual', ...(body !== undefined ? { body } : {}) }));
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      text: () => response.text(),
      cancel: () => void response.body?.cancel().catch(() => {}),
      stream: () => response.body,
    };
  };
}

/** An upstream response plus the handle that ends its time limit. */
export interface UpstreamCall {
  response: UpstreamResponse;
  /** Stops the timeout (call once the body is fully read, or when handing a stream to the caller). */
  settle(): void;
  /** Whether the time limit fired. */
  timedOut(): boolean;
}

/**
 * Calls the upstream with a time limit. The limit covers the wait for response headers and, until
 * `settle()` is called, the reading of the body; the caller going away (its request's signal aborts)
 * aborts the upstream request too, including a body still streaming.
 */
export async function callUpstream(
  transport: UpstreamTransport,
  init: Omit<UpstreamRequest, 'abort'>,
  timeoutMs: number,
  caller: Request,
): Promise<UpstreamCall> {
  const abort = new Abort();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  onCallerGone(caller, () => abort.abort());
  const settle = () => clearTimeout(timer);
  try {
    const response = await transport({ ...init, abort });
    return { response, settle, timedOut: () => timedOut };
  } catch (error) {
    settle();
    throw new UpstreamFailure(timedOut ? 'timeout' : abort.aborted ? 'aborted' : 'network', error);
  }
}

/** Reads a whole upstream body as text, mapping an abort during the read to the right failure. */
export async function readUpstreamText(call: UpstreamCall): Promise<string> {
  try {
    return await call.response.text();
  } catch (error) {
    throw new UpstreamFailure(call.timedOut() ? 'timeout' : 'network', error);
  } finally {
    call.settle();
  }
}
