import { sleep, type Clock } from '../clock.js';
import type { Deadline } from './deadline.js';
import { retryAfterOf } from './retry-after.js';
import { retryWait, saysWhen, TRANSIENT } from './retryable.js';

/** What `afterResponse` returns to send the request again (made by `info.retry()`). */
export class RetrySignal {
  readonly retry = true;
}

const retry = () => new RetrySignal();

/**
 * Hooks of the API client. Each runs for every attempt, retries included, in order.
 * - `beforeRequest(request, { retryCount })`: change the request before it is sent (e.g.
 *   `request.headers.set('authorization', …)` with your current token, a trace header); return a
 *   `Request` to send instead, or a `Response` to answer without sending.
 * - `afterResponse(request, response, { retryCount, retry })`: look at the response (tracing,
 *   metrics; it is a copy); return a `Response` to use instead, or `retry()` to send the request
 *   again, e.g. after refreshing a token on a 401 (any method; `beforeRequest` runs again; it counts
 *   against the `retry` limit, so `retry: 0` allows none).
 */
export interface ApiHooks {
  beforeRequest?: ((request: Request, info: { retryCount: number }) => Request | Response | void | Promise<Request | Response | void>)[];
  afterResponse?: ((request: Request, response: Response, info: { retryCount: number; retry: () => RetrySignal }) => Response | RetrySignal | void | Promise<Response | RetrySignal | void>)[];
}

/** The request of one call, made again for each attempt. */
export interface Outgoing {
  url: string;
  method: string;
  headers: Headers;
  body?: string;
}

/** How the attempts of one call go: the limits of {@link ApiClientOptions}. */
export interface AttemptPolicy {
  retry: number;
  maxRetryAfter: number;
  hooks: ApiHooks;
  fetch: typeof globalThis.fetch;
  clock: Clock;
}

/** An HTTP answer that is a failure (not 2xx), after the retries it allowed. */
export class FailedAnswer extends Error {
  constructor(readonly response: Response) {
    super(`HTTP ${response.status}`);
  }
}

/** Wait before retry n (1, 2, …): 300 ms doubling, at most 2 s. */
export const backoff = (n: number) => Math.min(2_000, 300 * 2 ** (n - 1));

const discard = (response: Response) => void response.body?.cancel().catch(() => undefined);

/**
 * The one retry loop of the API client: sends `out` until it gets a 2xx answer, within `deadline`.
 * GETs are sent again on network errors and the statuses of the one retry rule (retryable.ts: 408,
 * 429, 500, 502, 503; not a gateway's 504), after 300 ms doubling (2 s at most), or after the
 * answer's `Retry-After` when it is at most `maxRetryAfter` and shorter than the time left (a longer
 * one ends the loop: the caller gets it as `retryAfterMs`). A hook's `retry()`
 * sends any method again. At most `retry` retries in all. Rejects with {@link FailedAnswer} for a
 * failed HTTP answer, else with what failed (the network error, the deadline's reason).
 */
export async function attempt(out: Outgoing, policy: AttemptPolicy, deadline: Deadline): Promise<Response> {
  const idempotent = out.method === 'GET';
  for (let retryCount = 0; ; retryCount++) {
    const more = retryCount < policy.retry;
    let request = new Request(out.url, { method: out.method, headers: out.headers, ...(out.body !== undefined ? { body: out.body } : {}), signal: deadline.signal });
    let response: Response | undefined;
    for (const hook of policy.hooks.beforeRequest ?? []) {
      const result = await hook(request, { retryCount });
      if (result instanceof Response) response = result;
      if (result instanceof Request) request = result;
      if (result) break;
    }
    try {
      response ??= await policy.fetch(request);
    } catch (error) {
      if (deadline.signal.aborted || !more || !idempotent) throw error;
      await sleep(policy.clock, backoff(retryCount + 1), deadline.signal);
      continue;
    }
    let forced = false;
    for (const hook of policy.hooks.afterResponse ?? []) {
      const copy: Response = response.clone();
      const result = await hook(request, copy, { retryCount, retry });
      if (result !== copy) discard(copy);
      forced = result instanceof RetrySignal;
      if (forced) break;
      if (result instanceof Response) response = result;
    }
    if (forced && more) {
      discard(response);
      await sleep(policy.clock, backoff(retryCount + 1), deadline.signal);
      continue;
    }
    if (response.ok) return response;
    if (!forced && more && idempotent && TRANSIENT.get(response.status)?.repeatsWait === false) {
      const after = saysWhen(response.status) ? retryAfterOf(response, () => policy.clock.now()) : undefined;
      const pause = after === undefined ? backoff(retryCount + 1) : retryWait(after, 0, policy.maxRetryAfter, deadline.remaining());
      if (pause !== null) {
        discard(response);
        await sleep(policy.clock, pause, deadline.signal);
        continue;
      }
    }
    throw new FailedAnswer(response);
  }
}
