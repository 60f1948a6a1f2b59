import * as z from 'zod/mini';

/** One entry of the spec's 422 body: `loc`, `msg` and `type` are all required. */
export const ValidationErrorItem = z.object({
  loc: z.array(z.union([z.string(), z.int()])),
  msg: z.string(),
  type: z.string(),
});
export type ValidationErrorItem = z.infer<typeof ValidationErrorItem>;

/** HTTPValidationError: the body of every 422. */
export const HTTPValidationError = z.object({ detail: z.array(ValidationErrorItem) });
export type HTTPValidationError = z.infer<typeof HTTPValidationError>;

/** Where a value came from; the first element of `loc`, as the service reports it. */
export type Location = 'body' | 'query' | 'path' | 'header';

const NUMERIC = new Set(['number', 'int', 'bigint']);

/** Reads the value at `path` in `input`, to tell a missing field from a wrong one. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * Maps a zod issue to the closest `type` and message the service (pydantic) uses. Messages are
 * written here rather than taken from a zod locale, which would add kilobytes to browser bundles.
 */
function describe(issue: z.core.$ZodIssue, input: unknown): { type: string; msg: string } {
  switch (issue.code) {
    case 'invalid_type': {
      if (valueAt(input, issue.path) === undefined) return { type: 'missing', msg: 'Field required' };
      const expected = issue.expected === 'int' ? 'int' : issue.expected;
      const noun = expected === 'int' ? 'a valid integer' : expected === 'object' ? 'a valid dictionary' : expected === 'array' ? 'a valid list' : `a valid ${expected}`;
      return { type: `${expected}_type`, msg: `Input should be ${noun}` };
    }
    case 'too_small':
      if (NUMERIC.has(issue.origin))
        return issue.inclusive
          ? { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${issue.minimum}` }
          : { type: 'greater_than', msg: `Input should be greater than ${issue.minimum}` };
      if (issue.origin === 'string') return { type: 'string_too_short', msg: `String should have at least ${issue.minimum} character${issue.minimum === 1 ? '' : 's'}` };
      return { type: 'too_short', msg: `Should have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}` };
    case 'too_big':
      if (NUMERIC.has(issue.origin))
        return issue.inclusive
          ? { type: 'less_than_equal', msg: `Input should be less than or equal to ${issue.maximum}` }
          : { type: 'less_than', msg: `Input should be less than ${issue.maximum}` };
      if (issue.origin === 'string') return { type: 'string_too_long', msg: `String should have at most ${issue.maximum} character${issue.maximum === 1 ? '' : 's'}` };
      return { type: 'too_long', msg: `Should have at most ${issue.maximum} item${issue.maximum === 1 ? '' : 's'}` };
    case 'invalid_format':
      if (issue.format === 'uuid' || issue.format === 'guid') return { type: 'uuid_parsing', msg: 'Input should be a valid UUID' };
      if (issue.format === 'datetime') return { type: 'datetime_parsing', msg: 'Input should be a valid ISO 8601 datetime' };
      return { type: 'string_pattern_mismatch', msg: `Input should be a valid ${issue.format}` };
    case 'invalid_value': {
      if (valueAt(input, issue.path) === undefined) return { type: 'missing', msg: 'Field required' };
      const list = issue.values.map((v) => JSON.stringify(v)).join(', ');
      return issue.values.length === 1
        ? { type: 'literal_error', msg: `Input should be ${list}` }
        : { type: 'enum', msg: `Input should be one of ${list}` };
    }
    case 'invalid_union':
      return { type: 'union_error', msg: 'Input does not match any allowed shape' };
    case 'not_multiple_of':
      return { type: 'multiple_of', msg: `Input should be a multiple of ${issue.divisor}` };
    case 'invalid_key':
      return { type: 'invalid_key', msg: 'Input has a key that is not allowed' };
    case 'invalid_element':
      return { type: 'invalid_element', msg: 'Input has an element that is not allowed' };
    default:
      // zod/mini carries no locale: its own message is the uninformative "Invalid input".
      return { type: 'value_error', msg: issue.message && issue.message !== 'Invalid input' ? issue.message : `Value is not valid (${issue.code})` };
  }
}

/**
 * Turns a zod error into exactly the spec's 422 `detail` array: `loc` starts with where the value
 * came from (`body`, `query`, `path`) followed by the path of the field. Pass the parsed `input` so a
 * missing field is reported as `missing` rather than as a wrong type.
 */
export function toValidationDetail(error: z.core.$ZodError, where: Location, input?: unknown): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  for (const issue of error.issues) {
    const base = [where, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ loc: [...base, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    out.push({ loc: base, ...describe(issue, input) });
  }
  return out;
}

/** Result of {@link validate}: the parsed value, or the 422 detail. */
export type Validated<T> = { ok: true; value: T } | { ok: false; detail: ValidationErrorItem[] };

/** Parses `input` with `schema`, returning the spec's 422 detail on failure. */
export function validate<S extends z.core.$ZodType>(schema: S, input: unknown, where: Location): Validated<z.output<S>> {
  const result = z.safeParse(schema, input);
  return result.success ? { ok: true, value: result.data } : { ok: false, detail: toValidationDetail(result.error, where, input) };
}

type Def = { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType; element?: z.core.$ZodType };
const defOf = (s: z.core.$ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The scalar kind a query value should be read as, looking through optional/default/nullable. */
function queryKind(schema: z.core.$ZodType): { array: boolean; scalar: string } {
  let def = defOf(schema);
  while (def.innerType || (def.type === 'pipe' && def.in)) def = defOf((def.innerType ?? def.in)!);
  if (def.type === 'array') {
    const inner = queryKind(def.element!);
    return { array: true, scalar: inner.scalar };
  }
  return { array: false, scalar: def.type };
}

/**
 * Reads URL query parameters into a plain object shaped for an object schema: numbers and booleans
 * are converted from text when they look like one (otherwise left as text so validation reports
 * them), and array fields collect repeated keys (`?type=a&type=b`).
 */
export function queryToObject(schema: z.core.$ZodType, params: URLSearchParams): Record<string, unknown> {
  const shape = (defOf(schema) as unknown as { shape?: Record<string, z.core.$ZodType> }).shape ?? {};
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    // Own keys only: `?toString=1` or `?__proto__=1` must read as unknown keys, not inherited members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const kind = field ? queryKind(field) : { array: false, scalar: 'string' };
    const convert = (v: string): unknown => {
      if (kind.scalar === 'number' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
      if (kind.scalar === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
      return v;
    };
    // Defined, not assigned: assigning `__proto__` would set the prototype and lose the key.
    Object.defineProperty(out, key, { value: kind.array ? values.map(convert) : convert(values[values.length - 1]!), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The query of a request URL for `parseRequest`: read with the endpoint's query schema (`queryToObject`), or every key as text when it has none. */
export function queryFromUrl(endpoint: { query?: z.core.$ZodType }, params: URLSearchParams): Record<string, unknown> {
  return queryToObject(endpoint.query ?? NO_FIELDS, params);
}

/** The query schema of an endpoint without one (made once: a zod schema is costly to build). */
const NO_FIELDS = z.object({});

/** Writes a plain query object to URL search params (arrays become repeated keys; undefined is skipped). */
export function objectToQuery(query: Record<string, unknown> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  return params;
}
