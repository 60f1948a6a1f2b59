import type { Context, Hono } from 'hono';
import * as z from 'zod/mini';
import { parseJsonText, parseRequest, queryFromUrl, type Endpoint } from 'kb-voice/schemas';
import { HttpError } from './errors.js';
import type { ServerContext } from './server-context.js';
import { sleep } from '../time.js';

/** A handler's answer: a JSON body (validated against the endpoint's response schema) or a raw Response. */
export type Reply = Response | { status?: number; json: unknown };

type Out<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/** The validated input of one request. */
export interface RouteInput<E extends Endpoint> {
  params: z.output<E['params']>;
  query: E extends { query: infer Q extends z.core.$ZodType } ? z.output<Q> : Record<string, never>;
  body: E extends { body: infer B extends z.core.$ZodType } ? Out<B> : undefined;
  c: Context;
}

/** Hono path (`:name`) of a spec path template (`{name}`). */
export const honoPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

/** Checks `Authorization: Bearer <key>`; throws 401 `{ detail }` otherwise. */
export function requireBearer(c: Context, apiKey: string): void {
  const header = c.req.header('authorization');
  if (!header) throw new HttpError(401, 'Not authenticated');
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m || m[1] !== apiKey) throw new HttpError(401, 'Invalid API key');
}

/** Parses JSON text; on failure the 422 detail `json_invalid` with the character position (the shared parser's). */
export const parseJson = parseJsonText;

/** Most items of a long list the response check reads: the first and last half of this many. */
const CHECKED_ITEMS = 100;

/**
 * What the response check reads of a reply: the reply itself, but each top-level list longer than
 * {@link CHECKED_ITEMS} cut to its ends. One function builds every item of such a list (E12/E13
 * with 10,000 sessions), so its ends check that function, while checking every item costs more
 * than building the reply.
 */
function checkedPart(json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(json)) {
    if (Array.isArray(value) && value.length > CHECKED_ITEMS) {
      (out ??= { ...json })[key] = [...value.slice(0, CHECKED_ITEMS / 2), ...value.slice(-CHECKED_ITEMS / 2)];
    }
  }
  return out ?? json;
}

/**
 * Registers one endpoint of the table. The wrapper does what every endpoint shares, in the
 * service's order: injected latency, the bearer check where the spec lists it (401), then path,
 * query and body validation with every problem reported together (422 with `loc` starting
 * `path`/`query`/`body`), then the handler. JSON replies with the endpoint's success status are
 * checked against its response schema (long lists by their ends), so the emulator cannot drift
 * from the shared schemas.
 */
export function route<const E extends Endpoint>(
  app: Hono,
  sc: ServerContext,
  endpoint: E,
  handler: (input: RouteInput<E>) => Promise<Reply> | Reply,
  /** Extra path shapes for the same endpoint, with the parameters they imply (E15's empty id). */
  variants: { path: string; params: Record<string, string> }[] = [],
): void {
  const run = async (c: Context, fixed: Record<string, string>): Promise<Response> => {
    if (sc.faults.latencyMs > 0) await sleep(sc.faults.latencyMs);
    if (endpoint.auth) requireBearer(c, sc.apiKey);
    if (endpoint.body && endpoint.contentType) {
      // A text body of its own media type (RT's sdpfrag): anything else is refused before parsing.
      const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
      if (type !== endpoint.contentType) throw new HttpError(415, `Content-Type must be ${endpoint.contentType}`);
    }
    // The shared parser of kb-voice (also used by the API client and the relay): the same bad
    // request gets the same 422 everywhere.
    const parsed = parseRequest(endpoint, {
      params: { ...c.req.param(), ...fixed },
      query: queryFromUrl(endpoint, new URL(c.req.url).searchParams),
      ...(endpoint.body ? { bodyText: await c.req.text() } : {}),
    });
    if (!parsed.ok) throw new HttpError(422, parsed.detail);
    const { params, query, body } = parsed.value;
    const reply = await handler({ params, query: query ?? {}, body, c } as RouteInput<E>);
    if (reply instanceof Response) return reply;
    const status = reply.status ?? endpoint.status;
    if (status === endpoint.status) {
      const checked = z.safeParse(endpoint.response, checkedPart(reply.json));
      if (!checked.success) {
        console.error(`[kb-voice emulator] ${endpoint.id} produced a response that does not match its schema`, checked.error.issues);
        return c.json({ detail: 'Internal Server Error' }, 500);
      }
    }
    return c.json(reply.json as object, status as 200);
  };
  app.on(endpoint.method, honoPath(endpoint.path), (c) => run(c, {}));
  for (const v of variants) app.on(endpoint.method, v.path, (c) => run(c, v.params));
}
