import type * as z from 'zod/mini';
import { fillPath, objectToQuery, type Endpoint } from '../../schemas/index.js';
import { jsonReply } from '../errors.js';
import type { Reply } from '../message.js';
import type { Routed } from '../route-types.js';
import type { Answer } from '../upstream.js';

/**
 * The policies' helpers: the one way to the upstream (`forward`), reading its JSON (`readJson`) and
 * answering with the relay's own JSON (`json`).
 */

/** What `forward` changes from the validated request; everything left out is the request's own. */
export interface ForwardInit {
  /** Another endpoint of the table (E6 checks its message with E17): then no query or body is carried over. */
  endpoint?: Endpoint;
  params?: Record<string, string>;
  query?: Record<string, unknown> | URLSearchParams | undefined;
  /** A JSON body in place of the validated one. */
  json?: unknown;
  /** A body of any type, as text. */
  text?: { type: string; text: string };
  /** Headers the relay sets itself (never `authorization`). */
  headers?: Record<string, string>;
}

const hasKeys = (o: object) => {
  for (const _ in o) return true;
  return false;
};
const asJson = (value: unknown) => ({ type: 'application/json', text: JSON.stringify(value) });

/**
 * The one way to the upstream: the route's endpoint (or `init.endpoint`), at the upstream path the
 * table maps it to (`endpoint.upstream`, else its own), with the request's validated params, query
 * and body unless `init` says otherwise; bearer key, allowlisted headers and time limit by `Upstream`.
 * A non-2xx answer is thrown as a `RelayError`.
 */
export function forward(ctx: Routed, init: ForwardInit = {}): Promise<Answer> {
  const own = init.endpoint === undefined || init.endpoint === ctx.match.route.endpoint;
  const endpoint = init.endpoint ?? ctx.match.route.endpoint;
  const target = endpoint.upstream ?? endpoint;
  const v = ctx.input;
  const query = 'query' in init ? init.query : own ? v.query : undefined;
  const body = init.text ?? ('json' in init ? asJson(init.json) : own ? v.text ?? (v.body === undefined ? undefined : asJson(v.body)) : undefined);
  return ctx.services.upstream.send({
    method: target.method,
    path: fillPath(target.path, init.params ?? v.params),
    query: query instanceof URLSearchParams ? query : query && hasKeys(query) ? objectToQuery(query) : undefined,
    body,
    ...(init.headers ? { headers: init.headers } : {}),
    caller: ctx.request,
    requestId: ctx.requestId,
  });
}

/**
 * Reads a 2xx upstream JSON answer (secret-scanned, at most `maxUpstreamJsonBytes`) and validates it
 * with `schema`: `raw` as received (after `narrow`, when given), `value` parsed.
 */
export const readJson = <S extends z.core.$ZodType>(ctx: Routed, answer: Answer, schema: S, narrow?: (raw: unknown) => unknown) =>
  ctx.services.upstream.readJson(answer, schema, ctx.services.reports.maxJsonBytes, narrow);

/** A JSON reply made by the relay, with the request's headers. */
export const json = (ctx: Routed, status: number, body: unknown): Reply => jsonReply(status, body, ctx.headers);
