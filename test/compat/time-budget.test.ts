/**
 * One time budget per call (#37 1, 2, 7): Retry-After bounded and never past the budget, no retry of
 * 504, a stalled or trickled body timing out, a cut body a clear invalid_response. Real sockets that
 * stall use small budgets; the assertions are on codes and request counts, never on durations.
 */
import { describe, expect, it, vi } from 'vitest';
import { ApiError, createApiClient } from '../../src/api/index.js';
import { AI, responses } from '../helpers/samples.js';
import { cut, json, stall, useUpstream, trickle, type Upstream } from './upstream.js';

let up: Upstream;
useUpstream({}, (u) => {
  up = u;
});

const usage = (timeout: number, extra: { retry?: number; maxRetryAfter?: number } = {}) =>
  createApiClient({ baseUrl: up.url, apiKey: 'sk-test', timeout, ...extra }).realtime.usage(AI);

describe('Retry-After', () => {
  it('30 s (beyond the bound) ends the call at once with retryAfterMs, no retry', async () => {
    up.next(json({ detail: 'maintenance' }, 503, { 'retry-after': '30' }));
    const error = await usage(2_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'http_error', status: 503, retryAfterMs: 30_000 });
    expect(up.seen).toHaveLength(1);
  });

  it('within the bound but past the remaining budget: no wait, retryAfterMs for the caller', async () => {
    up.next(json({ detail: 'slow down' }, 429, { 'retry-after': '1' }));
    const error = await usage(300).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'http_error', status: 429, retryAfterMs: 1_000 });
    expect(up.seen).toHaveLength(1);
  });

  it('an HTTP-date is measured against the response\'s own Date (the caller\'s clock may be off)', async () => {
    const served = Date.parse('2001-02-03T04:05:06Z');
    up.next(json({ detail: 'later' }, 503, { date: new Date(served).toUTCString(), 'retry-after': new Date(served + 20_000).toUTCString() }));
    await expect(usage(2_000)).rejects.toMatchObject({ status: 503, retryAfterMs: 20_000 });
    expect(up.seen).toHaveLength(1);
  });

  it('0 is honoured: the GET is sent again and succeeds', async () => {
    up.next(json({ detail: 'busy' }, 429, { 'retry-after': '0' }));
    await expect(usage(5_000)).resolves.toMatchObject({ bot_id: AI });
    expect(up.seen).toHaveLength(2);
  });

  it('within the bound is waited out before the retry (fake time)', async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const fetch = async () => {
        calls++;
        return calls === 1
          ? new Response('{"detail":"busy"}', { status: 503, headers: { 'retry-after': '2', 'content-type': 'application/json' } })
          : new Response(JSON.stringify(responses.E13), { status: 200, headers: { 'content-type': 'application/json' } });
      };
      const result = createApiClient({ baseUrl: 'http://upstream.test', fetch, timeout: 10_000 }).realtime.usage(AI);
      await vi.advanceTimersByTimeAsync(1_999);
      expect(calls).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      await expect(result).resolves.toMatchObject({ bot_id: AI });
      expect(calls).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('no retry of a gateway timeout', () => {
  it('504 (the relay waited its whole limit) is not asked again', async () => {
    up.next(json({ detail: 'Upstream timed out' }, 504));
    await expect(usage(5_000, { retry: 2 })).rejects.toMatchObject({ code: 'http_error', status: 504 });
    expect(up.seen).toHaveLength(1);
  });

  it('502 and 503 without Retry-After are still retried', async () => {
    up.next(json({ detail: 'bad gateway' }, 502), json({ detail: 'busy' }, 503));
    await expect(usage(10_000, { retry: 2 })).resolves.toMatchObject({ bot_id: AI });
    expect(up.seen).toHaveLength(3);
  });
});

describe('the budget covers the body', () => {
  it('a body stalled after the headers times out', async () => {
    up.next(stall());
    // 1 s: the headers must come within the budget for the status to be known, even on a loaded machine.
    await expect(usage(1_000, { retry: 0 })).rejects.toMatchObject({ code: 'timeout', status: 200 });
  });

  it('a body trickled byte by byte times out, though every byte comes in time', async () => {
    up.next(trickle(JSON.stringify(responses.E13), 30));
    await expect(usage(300, { retry: 0 })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('no headers at all times out too', async () => {
    up.next(() => undefined);
    await expect(usage(300, { retry: 0 })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('covers the retries: three stalled answers do not get three budgets', async () => {
    up.next(json({ detail: 'busy' }, 503), json({ detail: 'busy' }, 503), stall());
    await expect(usage(600, { retry: 5 })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('the caller\'s abort still wins, as an AbortError', async () => {
    up.next(stall());
    const controller = new AbortController();
    const api = createApiClient({ baseUrl: up.url, timeout: 10_000 });
    const pending = api.realtime.usage(AI, {}, { signal: controller.signal });
    await vi.waitFor(() => expect(up.seen).toHaveLength(1));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('a body cut mid-way', () => {
  it('is invalid_response with the read error as cause, not a raw TypeError', async () => {
    up.next(cut());
    const error = await usage(5_000, { retry: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
    expect((error as Error).message).toMatch(/connection broke while reading its body/);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });
});
