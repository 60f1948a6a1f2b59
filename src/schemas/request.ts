import * as z from 'zod/mini';
import type { Endpoint } from './endpoints.js';
import { toValidationDetail, type ValidationErrorItem } from './validation.js';

type Out<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/** A request of `E` after {@link parseRequest}: path, query and body in their validated form. */
export interface ParsedRequest<E extends Endpoint = Endpoint> {
  params: z.output<E['params']>;
  query: E extends { query: infer Q extends z.core.$ZodType } ? z.output<Q> : undefined;
  body: E extends { body: infer B extends z.core.$ZodType } ? Out<B> : undefined;
}

/** What {@link parseRequest} reads. Give the body either decoded (`body`) or as received (`bodyText`). */
export interface RequestInput {
  /** Path parameters by name. */
  params?: Record<string, string | undefined>;
  /** The query as an object: the API client's, or a URL's read with `queryFromUrl` (kept apart so browser bundles need not carry it). */
  query?: Record<string, unknown>;
  /** The decoded JSON body; `undefined` when there is none. */
  body?: unknown;
  /** The body as received (JSON; the text itself for an endpoint with a `contentType`); empty or blank means "no body". Takes precedence over `body`. */
  bodyText?: string;
}

/** Result of {@link parseRequest}: the validated request, or every problem in the spec's 422 shape. */
export type RequestParse<E extends Endpoint> = { ok: true; value: ParsedRequest<E> } | { ok: false; detail: ValidationErrorItem[] };

/** Parses JSON text; on failure the 422 item `json_invalid` at `['body', <character position>]`, as the service reports it. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; detail: ValidationErrorItem[] } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = String(error);
    const position = /end of JSON/i.test(message) ? text.length : Number(/position (\d+)/.exec(message)?.[1] ?? 0);
    return { ok: false, detail: [{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }] };
  }
}

function check(schema: z.core.$ZodType, input: unknown, where: 'path' | 'query' | 'body', detail: ValidationErrorItem[]): unknown {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  detail.push(...toValidationDetail(result.error, where, input));
  return undefined;
}

/**
 * The one request parser of kb-voice, used by the API client (before sending), the relay and the
 * emulator (on receipt), so the same bad request gets the same 422 everywhere. Path, query and body
 * are all checked and every problem is reported together, in that order. An omitted optional body
 * (E1, E6) is parsed as `{}` so the schema's defaults apply; a missing required one is
 * `loc: ['body'], type: 'missing'`. A query on an endpoint without one is `extra_forbidden` per key.
 */
export function parseRequest<const E extends Endpoint>(endpoint: E, input: RequestInput): RequestParse<E> {
  const detail: ValidationErrorItem[] = [];
  const params = check(endpoint.params, input.params ?? {}, 'path', detail);

  let query: unknown;
  if (endpoint.query) query = check(endpoint.query, input.query ?? {}, 'query', detail);
  else for (const key of Object.keys(input.query ?? {})) detail.push({ loc: ['query', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });

  let body: unknown;
  if (endpoint.body) {
    let raw = input.body;
    if (input.bodyText !== undefined && endpoint.contentType) {
      // A body of its own media type (RT's sdpfrag) is the text itself.
      raw = input.bodyText === '' ? undefined : input.bodyText;
    } else if (input.bodyText !== undefined) {
      raw = undefined;
      if (input.bodyText.trim() !== '') {
        const parsed = parseJsonText(input.bodyText);
        if (parsed.ok) raw = parsed.value;
        else detail.push(...parsed.detail);
      }
    }
    const broken = input.bodyText !== undefined && !endpoint.contentType && raw === undefined && input.bodyText.trim() !== '';
    if (!broken) {
      if (raw === undefined && endpoint.bodyRequired !== false) detail.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
      else body = check(endpoint.body, raw ?? {}, 'body', detail);
    }
  }

  if (detail.length > 0) return { ok: false, detail };
  return { ok: true, value: { params, query, body } as ParsedRequest<E> };
}
