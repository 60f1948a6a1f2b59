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

/** ISO 8601 date-time; accepts `Z`, offsets and the offset-less form Python services often emit. */
export const DateTime = z.iso.datetime({ offset: true, local: true });

/** A response field whose presence the spec does not guarantee. */
export const maybe = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));

/** JSON object with arbitrary members. */
export const JsonObject = z.record(z.string(), z.unknown());

/** Page number: integer >= 1. */
export const PageNumber = z.int().check(z.gte(1));

/** Page size: integer in 1..1000. */
export const PageSize = z.int().check(z.gte(1), z.lte(1000));

/** The page envelope of E19 and E20. */
export const pageOf = <T extends z.core.SomeType>(item: T) =>
  z.looseObject({
    items: z.array(item),
    total: z.int(),
    page: z.int(),
    size: z.int(),
    pages: z.int(),
  });

/** Generic `{ detail: "<message>" }` error body (401, 404, 413, 502, 504). */
export const ErrorDetail = z.looseObject({ detail: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** `{ success: boolean }` acknowledgement. */
export const SuccessOut = z.looseObject({ success: z.boolean() });
export type SuccessOut = z.infer<typeof SuccessOut>;
