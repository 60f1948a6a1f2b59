/**
 * #36 8 and 9: the API client's errors never carry the key (what `console.error(error)` prints on
 * a server: the error, its cause, nested properties); ids that are path steps are refused before
 * anything is sent.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient, ValidationError, type ApiClient } from '../../src/api/index.js';
import { AI, MSG } from '../helpers/samples.js';
import { cut, json, raw, stall, useUpstream, type Answer, type Upstream } from './upstream.js';

const KEY = 'sk-live-0123456789abcdef';
let up: Upstream;
let api: ApiClient;
useUpstream({ apiKey: KEY, timeout: 400 }, (u, a) => {
  up = u;
  api = a;
});

const printed = (error: unknown) => inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true });

describe('errors never carry the key', () => {
  it.each<[string, Answer]>([
    ['503 with Retry-After', json({ detail: 'busy' }, 503, { 'retry-after': '30' })],
    ['401', json({ detail: 'Invalid key' }, 401)],
    ['422 from the service', json({ detail: [{ loc: ['query', 'x'], msg: 'bad', type: 'value_error' }] }, 422)],
    ['a stalled body (timeout)', stall()],
    ['a cut body', cut()],
    ['an answer of the wrong shape', json({ sessions: 1 })],
    ['HTML from a gateway', raw('<html>502</html>', 502, { 'content-type': 'text/html' })],
  ])('%s', async (_name, answer) => {
    up.next(answer);
    const error = await api.realtime.usage(AI).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(printed(error)).not.toContain(KEY);
    expect(printed(error)).not.toMatch(/Bearer sk-/);
  });

  it('a network error (nothing listening)', async () => {
    const closed = createApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY, retry: 0, timeout: 2_000 });
    const error = await closed.realtime.usage(AI).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network_error' });
    expect(printed(error)).not.toContain(KEY);
  });

  it('the key is still sent to the service', async () => {
    await api.realtime.usage(AI);
    expect(up.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('ids are validated and encoded', () => {
  it.each([
    ['.. as a session id (E15)', (a: ApiClient) => a.sessions.delete(AI, '..'), 'session_id'],
    ['. as a session id (E15)', (a: ApiClient) => a.sessions.delete(AI, '.'), 'session_id'],
    ['.. as a robot id (E13)', (a: ApiClient) => a.realtime.usage('..'), 'ai_id'],
    ['.. as a message id (E17)', (a: ApiClient) => a.sessions.message(AI, '..'), 'message_id'],
  ])('%s is a local ValidationError; nothing is sent', async (_name, call, field) => {
    const error = await call(api).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ local: true, detail: [{ loc: ['path', field], type: 'value_error', msg: expect.stringContaining('..') }] });
    expect(up.seen).toHaveLength(0);
  });

  it('other characters are percent-encoded into one path segment', async () => {
    up.next(json({ detail: 'Not found' }, 404));
    await expect(api.sessions.message(AI, '../x?y#z')).rejects.toBeInstanceOf(ApiError);
    expect(up.seen[0]!.path).toBe(`/v1/${AI}/session.messages/..%2Fx%3Fy%23z`);
    void MSG;
  });
});
