import { _isoDateTime } from 'zod/v4/core';
import * as z from 'zod/mini';

/**
 * Building blocks shared by the schemas of every area.
 *
 * Requests are strict (unknown fields are rejected, so a typo fails against the emulator instead of
 * being silently ignored by the service); responses are loose (unknown fields pass through untouched,
 * so a newer service never loses data in an older client) and tolerate `null` where the spec does not
 * say a field is present.
 */

/** UUID string (any RFC 9562 version). */
export const Uuid = z.uuid();

/**
 * ISO 8601 date-time; accepts `Z`, offsets and the offset-less form Python services often emit.
 * What `z.iso.datetime()` makes, without reading the `z.iso` namespace: that would put zod's
 * date, time and duration formats in every browser bundle (esbuild keeps a namespace object whole).
 */
export const DateTime = _isoDateTime(z.ZodMiniISODateTime, { offset: true, local: true });

/** `schema` applied to the value `fn` made of the input (a tolerance; JSON Schema still shows `schema`). */
const before = <T extends z.core.$ZodType>(fn: (value: unknown) => unknown, schema: T) => z.pipe(z.transform(fn), schema);

/** A decimal number written as a string (`"0.0012"`, `"12"`, `"1e-3"`); nothing else is read as a number. */
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const numeric = (value: unknown) => (typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value);

/**
 * Response tolerance (docs/client.md, "Talking to a real deployment"): a number the spec types as a
 * number, also when sent as a decimal string (`"0.0012"`, as Python's Decimal serialises money).
 * Any other string still fails.
 */
export const Num = before(numeric, z.number());
/** {@link Num} for integers (`"12"` is 12; `"1.5"` fails). */
export const Int = before(numeric, z.int());
/** A boolean the spec says defaults to false: absent or `null` is false. */
export const BoolOrFalse = before((value) => (value === null ? undefined : value), z._default(z.boolean(), false));
/** A number the spec says defaults to 0: absent or `null` is 0; a decimal string is read as {@link Num}. */
export const NumOr0 = before((value) => (value === null ? undefined : numeric(value)), z._default(z.number(), 0));

/**
 * The other common forms of a date-time in an answer, made ISO 8601: a space for the `T`
 * (`2026-11-26 10:00:00`, SQL and Python's `str(datetime)`) and an offset without its colon
 * (`+0000`) or minutes (`+00`). The instant is the same; only the form is normalised.
 */
export function normaliseDateTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim().replace(/^(\d{4}-\d{2}-\d{2}) (?=\d{2}:)/, '$1T');
  if (!/T\d{2}:\d{2}/.test(text)) return text;
  return text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(/([+-]\d{2})$/, '$1:00');
}

/** A date-time in an answer: {@link DateTime}, also in the forms {@link normaliseDateTime} reads (output: ISO 8601). */
export const DateTimeOut = before(normaliseDateTime, DateTime);

/** A response field whose presence the spec does not guarantee. */
export const maybe = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));

/**
 * JSON object with arbitrary members (not an array, not null): an object of no declared members
 * that keeps all of them. Not `z.record(z.string(), z.unknown())`, which reads the same JSON but puts
 * zod's record parser (~0.6 KB min+gzip) in every browser bundle; a non-object is `object_type`,
 * "Input should be a valid dictionary" (pydantic's words for a dict field).
 */
export const JsonObject = z.looseObject({});

/** Page number: integer >= 1. */
export const PageNumber = z.int().check(z.gte(1));

/** Page size: integer in 1..1000. */
export const PageSize = z.int().check(z.gte(1), z.lte(1000));

/**
 * The page envelope of E19 and E20. `total` and `pages` may be `null` or absent (fastapi-pagination
 * sends them null when it does not count, other pagers leave them out); the page walk then ends at
 * the first short or empty page.
 */
export const pageOf = <T extends z.core.SomeType>(item: T) =>
  z.looseObject({
    items: z.array(item),
    total: maybe(Int),
    page: Int,
    size: Int,
    pages: maybe(Int),
  });

/** Generic `{ detail: "<message>" }` error body (401, 404, 413, 502, 504). */
export const ErrorDetail = z.looseObject({ detail: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/**
 * The answer of a change whose success body the spec does not show (E4–E8), when it is not the
 * project's shape: any object that has none of `full`'s required members and does not say
 * `success: false` (`{ "success": true }`, `{}`, `{ "message": "ok" }`): the change was made.
 * An object with one of `full`'s members must be `full`, so a wrong shape of known data still fails.
 */
export const Acknowledgement = z.looseObject({ success: z.optional(z.literal(true)) });
/** An {@link Acknowledgement}: its other members are kept at run time. */
export type Acknowledgement = { success?: true };
/** An acknowledgement in place of `Full`: none of `Full`'s members (so `out.files` reads `undefined`). */
export type AcknowledgementOf<Full> = Acknowledgement & { [K in Exclude<keyof Full, 'success' | number | symbol>]?: undefined };

/** `full`, or an {@link Acknowledgement} that has none of its required members. */
export const orAcknowledgement = <T extends z.ZodMiniObject>(full: T) => {
  const known = Object.entries(full.shape as Record<string, z.core.$ZodType>)
    .filter(([key, schema]) => key !== 'success' && schema._zod.optin !== 'optional')
    .map(([key]) => key);
  const ack = Acknowledgement.check(z.refine((value) => !known.some((key) => key in value), { message: `Has a member of the full answer (${known.join(', ')}) but not its shape` }));
  return z.union([full, ack]) as unknown as z.ZodMiniType<z.output<T> | AcknowledgementOf<z.output<T>>, unknown>;
};

/** `{ success: boolean }` acknowledgement. */
export const SuccessOut = z.looseObject({ success: z.boolean() });
export type SuccessOut = z.infer<typeof SuccessOut>;
