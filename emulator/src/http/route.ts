import type { Context, Hono } from 'hono';
import * as z from 'zod/mini';
import { queryToObject, validate, type Endpoint, type ValidationErrorItem } from 'kb-voice/schemas';
import { HttpError } from './errors.js';
import type { ServerContext } from './server-context.js';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Checks `Authorization: Bearer <key>`; throws 401 `{ detail }` otherwise. */
export function requireBearer(c: Context, apiKey: string): void {
  const header = c.req.header('authorization');
  if (!header) throw new HttpError(401, 'Not authenticated');
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m || m[1] !== apiKey) throw new HttpError(401, 'Invalid API key');
}

/** Reads and parses the JSON body; the 422 detail for a missing or malformed one. */
async function readJson(c: Context, endpoint: Endpoint): Promise<{ ok: true; value: unknown } | { ok: false; detail: ValidationErrorItem[] }> {
  const text = await c.req.text();
  if (text.trim() === '') {
    if (endpoint.bodyRequired === false) return { ok: true, value: {} };
    return { ok: false, detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] };
  }
  return parseJson(text);
}

/** Parses JSON text; on failure the 422 detail `json_invalid` with the character position. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; detail: ValidationErrorItem[] } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = String(error);
    const position = /end of JSON/i.test(message) ? text.length : Number(/position (\d+)/.exec(message)?.[1] ?? 0);
    return { ok: false, detail: [{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }] };
  }
}

/**
 * Registers one endpoint of the table. The wrapper does what every endpoint shares, in the
 * service's order: injected latency, the bearer check where the spec lists it (401), then path,
 * query and body validation with every problem reported together (422 with `loc` starting
 * `path`/`query`/`body`), then the handler. JSON replies with the endpoint's success status are
 * checked against its response schema, so the emulator cannot drift from the shared schemas.
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
    const detail: ValidationErrorItem[] = [];
    const params = validate(endpoint.params, { ...c.req.param(), ...fixed }, 'path');
    if (!params.ok) detail.push(...params.detail);
    let query: unknown = {};
    if (endpoint.query) {
      const q = validate(endpoint.query, queryToObject(endpoint.query, new URL(c.req.url).searchParams), 'query');
      if (q.ok) query = q.value;
      else detail.push(...q.detail);
    }
    let body: unknown;
    if (endpoint.body) {
      const raw = await readJson(c, endpoint);
      if (!raw.ok) detail.push(...raw.detail);
      else {
        const b = validate(endpoint.body, raw.value, 'body');
        if (b.ok) body = b.value;
        else detail.push(...b.detail);
      }
    }
    if (detail.length > 0) throw new HttpError(422, detail);
    const reply = await handler({ params: params.ok ? params.value : {}, query, body, c } as RouteInput<E>);
    if (reply instanceof Response) return reply;
    const status = reply.status ?? endpoint.status;
    if (status === endpoint.status) {
      const checked = z.safeParse(endpoint.response, reply.json);
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
