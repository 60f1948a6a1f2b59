import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { AI, responses } from '../helpers/samples.js';

// The API client's waits run on its `clock` option: a test moves time, nothing sleeps.

/** A fetch answering from `replies` in order and counting the requests. */
function scripted(replies: (() => Response)[]) {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push(new Request(input, init));
    return replies.shift()!();
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('the API client on an injected clock', () => {
  it("waits out a 503's Retry-After on the clock, then retries", async () => {
    const clock = new FakeClock();
    const { fetch, requests } = scripted([json(503, { detail: 'busy' }, { 'retry-after': '3' }), json(200, responses.E13)]);
    const api = createApiClient({ baseUrl: 'https://svc.test', fetch, clock });
    let done = false;
    const call = api.realtime.usage(AI).then((value) => ((done = true), value));
    await clock.advance(2_999);
    expect({ requests: requests.length, done }).toEqual({ requests: 1, done: false });
    await clock.advance(1);
    await expect(call).resolves.toMatchObject({});
    expect(requests.length).toBe(2);
  });

  it('times a call out on the clock', async () => {
    const clock = new FakeClock();
    const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) => {
        const signal = init?.signal ?? (input as Request).signal;
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      })) as typeof globalThis.fetch;
    const api = createApiClient({ baseUrl: 'https://svc.test', fetch, clock, timeout: 1_000, retry: 0 });
    const call = api.realtime.usage(AI).catch((error: unknown) => error);
    await clock.advance(1_000);
    expect(await call).toMatchObject({ code: 'timeout' });
  });
});
