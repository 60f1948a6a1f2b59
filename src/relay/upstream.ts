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

/** An upstream response plus the handle that ends its time limit. */
export interface UpstreamCall {
  response: Response;
  /** Stops the timeout (call once the body is fully read, or when handing a stream to the caller). */
  settle(): void;
  /** Whether the time limit fired. */
  timedOut(): boolean;
}

/**
 * Calls the upstream with a time limit. The limit covers the wait for response headers and, until
 * `settle()` is called, the reading of the body; aborting `callerSignal` (the caller went away)
 * aborts the upstream request too, including a body still streaming.
 */
export async function callUpstream(
  fetchImpl: (request: Request) => Promise<Response>,
  url: string,
  init: { method: string; headers: Headers; body?: string },
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<UpstreamCall> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort();
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  if (callerSignal?.aborted) controller.abort();
  const settle = () => clearTimeout(timer);
  try {
    const response = await fetchImpl(new Request(url, { ...init, signal: controller.signal, redirect: 'manual' }));
    return { response, settle, timedOut: () => timedOut };
  } catch (error) {
    settle();
    throw new UpstreamFailure(timedOut ? 'timeout' : controller.signal.aborted ? 'aborted' : 'network', error);
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
