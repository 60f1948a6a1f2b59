import type { ValidationErrorItem } from '../schemas/index.js';

/**
 * The relay's one error convention (as Hono's `HTTPException`): every refusal and failure anywhere
 * in the pipeline is thrown as a `RelayError` and turned into a response in one place
 * (`errorResponse`). `detail` is what the caller reads; `reason` is what the log says, in words,
 * and may name things the caller must not see (the refused origin is fine, the upstream URL is not).
 */
export class RelayError extends Error {
  readonly code = 'relay_error';
  constructor(
    readonly status: number,
    readonly detail: string | ValidationErrorItem[],
    readonly reason: string = typeof detail === 'string' ? detail : describeDetail(detail),
    readonly headers: Record<string, string> = {},
    cause?: unknown,
  ) {
    super(typeof detail === 'string' ? detail : reason, { cause });
    this.name = 'RelayError';
  }
}

/** `422 at body.sdp (missing), path.ai_id (uuid_parsing)`: the locations and types of a 422. */
export function describeDetail(detail: readonly ValidationErrorItem[]): string {
  return `invalid request at ${detail.map((d) => `${d.loc.join('.')} (${d.type})`).join(', ')}`;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** A JSON response made by the relay itself; never cached. */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...headers, ...JSON_HEADERS } });
}

/** The response of a thrown error: `{ detail }` of a `RelayError`, 500 for anything else (a bug). */
export function errorResponse(error: unknown, headers: Record<string, string>): Response {
  if (error instanceof RelayError) return jsonResponse(error.status, { detail: error.detail }, { ...headers, ...error.headers });
  return jsonResponse(500, { detail: 'Internal relay error' }, headers);
}
