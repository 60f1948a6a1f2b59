import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { endpoints, parseRequest, toValidationDetail, type Endpoint } from '../../src/schemas/index.js';

// Issue 10: a 422 must say what was wrong (the field in `loc`, the reason in `msg`), never only
// zod/mini's locale-free "Invalid input".

const msgs = (schema: z.core.$ZodType, input: unknown) => {
  const r = z.safeParse(schema, input);
  return r.success ? [] : toValidationDetail(r.error, 'body', input);
};

describe('422 messages name the reason', () => {
  it.each([
    ['a multiple-of check', z.object({ n: z.number().check(z.multipleOf(5)) }), { n: 7 }, { loc: ['body', 'n'], type: 'multiple_of', msg: 'Input should be a multiple of 5' }],
    ['a record key check', z.object({ m: z.record(z.string().check(z.minLength(3)), z.number()) }), { m: { ab: 1 } }, { loc: ['body', 'm', 'ab'], type: 'invalid_key', msg: 'Input has a key that is not allowed' }],
    ['a custom refinement without a message', z.object({ s: z.string().check(z.refine((v) => v !== 'x')) }), { s: 'x' }, { loc: ['body', 's'], type: 'value_error', msg: 'Value is not valid (custom)' }],
  ] as const)('%s', (_name, schema, input, expected) => {
    const detail = msgs(schema, input);
    expect(detail).toContainEqual(expected);
    for (const d of detail) expect(d.msg).not.toBe('Invalid input');
  });

  it('no 422 of the endpoint table says only "Invalid input" for a table of wrong values', () => {
    const wrong = [{}, [], 'x', 1.5, -1, null, true, ['x'], '', 'not-a-date', 1e12];
    for (const e of Object.values(endpoints) as Endpoint[]) {
      for (const schema of [e.body, e.query]) {
        const shape = (schema as { _zod?: { def: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def.shape ?? {};
        for (const key of Object.keys(shape)) for (const value of wrong) {
          const parsed = parseRequest(e, { params: {}, query: {}, body: { [key]: value } });
          if (!parsed.ok) for (const d of parsed.detail) expect(d.msg, `${e.id} ${key}=${JSON.stringify(value)}`).not.toMatch(/^Invalid input$/);
        }
      }
    }
  });
});
