/**
 * `Retry-After` (RFC 9110 §10.2.3) in ms: delta-seconds, or an HTTP-date measured against the
 * response's own `Date` (the server's clock against the server's clock, so the caller's clock may
 * be off), or against `now()` when the response has no `Date`. A date in the past is 0; anything
 * else (a negative or fractional number, a word) is undefined: the service did not say.
 */
export function parseRetryAfter(value: string | null, date: string | null, now: () => number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  const served = date === null ? Number.NaN : Date.parse(date);
  return Math.max(0, at - (Number.isNaN(served) ? now() : served));
}

/** {@link parseRetryAfter} of a response's headers. */
export function retryAfterOf(response: Response, now: () => number): number | undefined {
  return parseRetryAfter(response.headers.get('retry-after'), response.headers.get('date'), now);
}
