import * as z from 'zod/mini';
import { HTTPValidationError, statusClass } from '../schemas/index.js';
import { RelayError } from './errors.js';
import type { UpstreamReply } from './message.js';
import { parseBody } from '../api/body.js';
import { readText } from './reply-text.js';
import { safeDetail } from './safe-detail.js';

/**
 * Header on the relay's own 504 (`upstream_timeout`): the upstream did not answer in time, so a
 * retry through the relay would wait as long again. Exposed to allowed origins (CORS).
 */
export const RELAY_ERROR_HEADER = 'x-relay-error';
/** A `Retry-After` worth passing on: delay-seconds or an HTTP date, nothing else. */
const RETRY_AFTER = /^(?:\d{1,9}|[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)$/;
/** Upper bound on an upstream error body the relay reads to relay its `detail`. */
const MAX_ERROR_BODY = 65_536;

/** The relay's own 504: no answer within `ms`. */
export const timedOut = (ms: number, cause?: unknown) => new RelayError(504, 'Upstream timed out', `upstream gave no answer within ${ms} ms`, { [RELAY_ERROR_HEADER]: 'upstream_timeout' }, cause);

const discard = (reply: UpstreamReply, error: RelayError) => {
  reply.cancel();
  return error;
};

const ErrorBody = z.object({ detail: z.union([z.string(), HTTPValidationError.shape.detail]) });

/**
 * The caller's error for a non-2xx upstream answer: 401/403 (the relay's own key refused), 3xx and
 * 5xx are 502, except 503 and 429, passed on as such with their `Retry-After` (the service is busy:
 * the caller may come back); a 4xx keeps its status with its `detail` reduced by `safeDetail`
 * (escapes decoded; internal addresses and what `unsafe` finds withheld).
 */
export async function upstreamError(reply: UpstreamReply, unsafe: (text: string) => boolean): Promise<RelayError> {
  const { status } = reply;
  const reason = `upstream answered ${status}`;
  if (status === 401 || status === 403) return discard(reply, new RelayError(502, 'Upstream refused the relay credentials', `${reason}: the relay's API key was refused`));
  if (status === 503 || status === 429) {
    const retryAfter = reply.headers.get('retry-after')?.trim();
    const headers: Record<string, string> = retryAfter && RETRY_AFTER.test(retryAfter) ? { 'retry-after': retryAfter } : {};
    return discard(reply, new RelayError(status, status === 503 ? 'Service unavailable, try again later' : 'Upstream rate limit reached, try again later', reason, headers));
  }
  if (statusClass(status) !== 'client_error') return discard(reply, new RelayError(502, `Upstream error (status ${status})`, reason));
  const declared = Number(reply.headers.get('content-length') ?? 0);
  if (declared > MAX_ERROR_BODY) return discard(reply, new RelayError(status, `Upstream error (status ${status})`, `${reason} with a body over ${MAX_ERROR_BODY} bytes`));
  const text = await readText(reply, MAX_ERROR_BODY).catch(() => '');
  const parsed = z.safeParse(ErrorBody, parseBody(text));
  const safe = parsed.success ? safeDetail(parsed.data.detail, unsafe) : undefined;
  return new RelayError(status, safe ?? `Upstream error (status ${status})`, safe === undefined ? `${reason}; its body was not a safe { detail } and was withheld` : reason);
}
