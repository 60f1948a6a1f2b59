import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/api/index.js';

const now = () => Date.parse('2026-11-26T10:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('30', null, now)).toBe(30_000);
    expect(parseRetryAfter(' 0 ', null, now)).toBe(0);
  });

  it('reads an HTTP-date against the response\'s Date, else against now()', () => {
    expect(parseRetryAfter('Thu, 26 Nov 2026 10:01:00 GMT', 'Thu, 26 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 26 Nov 2026 10:01:00 GMT', null, now)).toBe(60_000);
    expect(parseRetryAfter('Thu, 26 Nov 2026 10:01:00 GMT', 'not a date', now)).toBe(60_000);
  });

  it('a date in the past is 0', () => {
    expect(parseRetryAfter('Thu, 26 Nov 2026 09:00:00 GMT', null, now)).toBe(0);
  });

  it('anything else is undefined (the service did not say)', () => {
    for (const value of [null, '', '-5', '1.5', 'soon', '1e3']) expect(parseRetryAfter(value, null, now), String(value)).toBeUndefined();
  });
});
