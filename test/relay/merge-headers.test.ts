import { describe, expect, it } from 'vitest';
import { errorReply, jsonReply, RelayError } from '../../src/relay/errors.js';
import { mergeHeaders } from '../../src/relay/message.js';

describe('mergeHeaders (header records merged without a spread copy)', () => {
  it('copies every record into a new one, later records winning, and changes none of them', () => {
    const a = { 'x-request-id': 'r1', 'content-type': 'text/plain' };
    const b = { 'content-type': 'application/json' };
    const c = { 'cache-control': 'no-store' };
    const out = mergeHeaders(a, b, c);
    expect(out).toEqual({ 'x-request-id': 'r1', 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(out).not.toBe(a);
    out['x-extra'] = '1';
    expect(a).toEqual({ 'x-request-id': 'r1', 'content-type': 'text/plain' });
    expect(mergeHeaders(undefined)).toEqual({});
  });

  it('the relay\'s own JSON replies keep the request\'s headers and their own, an error\'s headers added', () => {
    const request = { 'x-request-id': 'r2' };
    expect(jsonReply(200, { ok: true }, request).headers).toEqual({ 'x-request-id': 'r2', 'content-type': 'application/json', 'cache-control': 'no-store' });
    const reply = errorReply(new RelayError(429, 'Too many requests', 'limit', { 'retry-after': '3' }), request);
    expect(reply.headers).toEqual({ 'x-request-id': 'r2', 'retry-after': '3', 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(request).toEqual({ 'x-request-id': 'r2' });
  });
});
