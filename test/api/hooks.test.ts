import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../../src/api/index.js';
import { startFakeServer } from '../helpers/fake-server.js';
import { AI, responses } from '../helpers/samples.js';

// The client's hooks: a token refreshed on a 401 and the request sent again (GET and POST alike),
// tracing headers and timings, and a response answered by a hook without a request.

type Server = Awaited<ReturnType<typeof startFakeServer>>;
let server: Server;
let validToken = 'token-2';
beforeAll(async () => {
  server = await startFakeServer((req) => {
    if (req.headers.authorization !== `Bearer ${validToken}`) return { status: 401, json: { detail: 'expired token' } };
    return req.method === 'POST' ? { status: 200, json: responses.E1 } : { status: 200, json: responses.E13 };
  });
});
afterAll(() => server.close());

/** A client whose token comes from `current()`, refreshed with `refresh()` on a 401. */
function refreshingClient(retry?: number) {
  let token = 'token-1';
  let refreshes = 0;
  const api = createApiClient({
    baseUrl: server.url,
    ...(retry !== undefined ? { retry } : {}),
    hooks: {
      beforeRequest: [(request) => request.headers.set('authorization', `Bearer ${token}`)],
      afterResponse: [
        async (_request, response, { retryCount, retry: again }) => {
          if (response.status !== 401 || retryCount > 0) return;
          refreshes++;
          token = 'token-2';
          return again();
        },
      ],
    },
  });
  return { api, refreshes: () => refreshes };
}

describe('API client hooks', () => {
  it('refreshes a token on 401 and sends the request again (GET and POST with its body)', async () => {
    const get = refreshingClient();
    const post = refreshingClient();
    server.requests.length = 0;
    expect((await get.api.realtime.usage(AI)).session_count).toBe(responses.E13.session_count);
    await post.api.realtime.warmup(AI, { language: 'en' });
    expect([get.refreshes(), post.refreshes()]).toEqual([1, 1]);
    expect(server.requests.map((r) => [r.method, r.headers.authorization])).toEqual([
      ['GET', 'Bearer token-1'], ['GET', 'Bearer token-2'], ['POST', 'Bearer token-1'], ['POST', 'Bearer token-2'],
    ]);
    expect(JSON.parse(server.requests[3]!.body)).toMatchObject({ language: 'en' });
  });

  it('gives up with the 401 as an ApiError when the refreshed token fails too, or retries are off', async () => {
    validToken = 'token-3';
    try {
      const { api } = refreshingClient();
      await expect(api.realtime.usage(AI)).rejects.toMatchObject({ name: 'ApiError', status: 401 });
      validToken = 'token-2';
      const off = refreshingClient(0);
      await expect(off.api.realtime.usage(AI)).rejects.toBeInstanceOf(ApiError);
      expect(off.refreshes()).toBe(1);
    } finally {
      validToken = 'token-2';
    }
  });

  it('traces: a header set before and the status seen after every request', async () => {
    const seen: string[] = [];
    const api = createApiClient({
      baseUrl: server.url,
      apiKey: 'token-2',
      hooks: {
        beforeRequest: [(request) => request.headers.set('x-trace-id', 'trace-1')],
        afterResponse: [(request, response) => void seen.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`)],
      },
    });
    server.requests.length = 0;
    await api.realtime.usage(AI);
    expect(server.requests[0]!.headers['x-trace-id']).toBe('trace-1');
    expect(seen).toEqual([`GET /v1/robots/${AI}/realtime-usage 200`]);
  });

  it('answers from a beforeRequest hook without a request (validated like any response)', async () => {
    const api = createApiClient({ baseUrl: server.url, hooks: { beforeRequest: [() => Response.json(responses.E13)] } });
    server.requests.length = 0;
    expect(await api.realtime.usage(AI)).toMatchObject({ session_count: responses.E13.session_count });
    expect(server.requests).toHaveLength(0);
  });
});
