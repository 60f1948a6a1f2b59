import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { DatasetConfigsIn, DatasetConfigsOut, JsonObject, toValidationDetail } from '../../src/schemas/index.js';

// JsonObject is an object of no declared members that keeps all of them (not a zod record, whose
// parser would cost every browser bundle ~0.6 KB min+gzip): it must read JSON objects as a record did.
describe('JsonObject', () => {
  it('keeps every member of an object, nested values untouched', () => {
    const value = { a: 1, b: { c: [1, 'x'] }, 'with space': null };
    expect(z.parse(JsonObject, value)).toEqual(value);
    expect(z.parse(JsonObject, {})).toEqual({});
  });

  it('rejects what is not a JSON object: arrays, null, strings, numbers', () => {
    for (const bad of [[], [1], null, 'x', 3, true]) expect(z.safeParse(JsonObject, bad).success).toBe(false);
  });

  it('does not copy an own __proto__ member into the result', () => {
    const parsed = z.parse(JsonObject, JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}')) as Record<string, unknown>;
    expect(parsed['ok']).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('a non-object request member is the 422 of a dict field', () => {
    const parsed = z.safeParse(DatasetConfigsIn, { metadata: ['not', 'an', 'object'] });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(toValidationDetail(parsed.error, 'body', { metadata: [] })).toEqual([
      { loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary', type: 'object_type' },
    ]);
  });

  it('in a response, keeps the members of metadata', () => {
    const out = z.parse(DatasetConfigsOut, { dataset_id: 'd', metadata: { lang: 'ja', n: 2 } });
    expect(out.metadata).toEqual({ lang: 'ja', n: 2 });
  });
});
