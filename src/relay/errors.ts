import type { ValidationErrorItem } from '../schemas/index.js';
import { encoder, mergeHeaders, type Reply } from './message.js';

const JSON_NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' } as const;

/**
 * The relay's one error convention (as Hono's `HTTPException`): every refusal and failure anywhere
 * in the pipeline is thrown as a `RelayError` and turned into a reply in one place (`errorReply`).
 * `detail` is what the caller reads; `reason` is what the log says, in words, and may name things
 * the caller must not see (the refused origin is fine, the upstream URL is not).
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

/** Most items of a 422 `detail` the relay answers with: past it, the last item says how many were left out. */
export const MAX_DETAIL_ITEMS = 20;
/** Longest `loc` segment or `msg` of a 422 item the relay answers with (longer ones end in `…`). */
export const MAX_DETAIL_TEXT = 300;

const cut = <T>(v: T): T => (typeof v === 'string' && v.length > MAX_DETAIL_TEXT ? (`${v.slice(0, MAX_DETAIL_TEXT - 1)}…` as T) : v);

/**
 * A 422 `detail` of bounded size, in the spec's `{ loc, msg, type }` shape: at most
 * {@link MAX_DETAIL_ITEMS} items, each text at most {@link MAX_DETAIL_TEXT} characters; when items
 * were left out, the last one says how many (`type: 'too_many_errors'`, at the location of the first
 * left out). A query of thousands of unknown keys answers a few KB, not a copy of itself.
 */
export function boundedDetail(detail: readonly ValidationErrorItem[]): ValidationErrorItem[] {
  const all = detail.length <= MAX_DETAIL_ITEMS;
  const out = (all ? detail : detail.slice(0, MAX_DETAIL_ITEMS - 1)).map((d) => ({ loc: d.loc.map(cut), msg: cut(d.msg), type: cut(d.type) }));
  if (!all) {
    const left = detail.length - out.length;
    out.push({ loc: [detail[out.length]!.loc[0] ?? 'request'], msg: `${left} more error${left === 1 ? '' : 's'} not shown (at most ${MAX_DETAIL_ITEMS} are listed)`, type: 'too_many_errors' });
  }
  return out;
}

/** `422 at body.sdp (missing), path.ai_id (uuid_parsing)`: the locations and types of a 422. */
export function describeDetail(detail: readonly ValidationErrorItem[]): string {
  return `invalid request at ${detail.map((d) => `${d.loc.join('.')} (${d.type})`).join(', ')}`;
}

/** A JSON reply made by the relay itself, with `headers` and then `more`; never cached. */
export function jsonReply(status: number, body: unknown, headers?: Record<string, string>, more?: Record<string, string>): Reply {
  return { status, headers: mergeHeaders(headers, more, JSON_NO_STORE), body: encoder.encode(JSON.stringify(body)) };
}

/** The reply of a thrown error: `{ detail }` of a `RelayError`, 500 for anything else (a bug). */
export function errorReply(error: unknown, headers: Record<string, string>): Reply {
  if (error instanceof RelayError) return jsonReply(error.status, { detail: error.detail }, headers, error.headers);
  return jsonReply(500, { detail: 'Internal relay error' }, headers);
}
