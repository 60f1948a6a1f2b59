import { describe, expect, it } from 'vitest';
import { createApiClient, MAX_REMEMBERED_RESOURCES } from '../../src/api/index.js';
import { AI } from '../helpers/samples.js';

describe('signaling resources remembered per session', () => {
  it(`keeps the ${MAX_REMEMBERED_RESOURCES} most recent; an older session's PATCH goes to the path by ids`, async () => {
    const patched: string[] = [];
    const fetch = async (request: Request) => {
      if (request.method === 'PATCH') {
        patched.push(new URL(request.url).pathname);
        return new Response(null, { status: 204 });
      }
      const { session_id } = (await request.json()) as { session_id: string };
      return Response.json({ session_id, type: 'answer', sdp: 'v=0\r\n' }, { status: 201, headers: { location: `/resources/${session_id}` } });
    };
    const api = createApiClient({ baseUrl: 'http://service.test', fetch: fetch as typeof globalThis.fetch });
    for (let i = 0; i <= MAX_REMEMBERED_RESOURCES; i++) await api.realtime.connect(AI, { type: 'offer', sdp: 'v=0', session_id: `s${i}` });
    await api.realtime.trickle(AI, 's0', 'a=end-of-candidates\r\n');
    await api.realtime.trickle(AI, 's1', 'a=end-of-candidates\r\n');
    await api.realtime.trickle(AI, `s${MAX_REMEMBERED_RESOURCES}`, 'a=end-of-candidates\r\n');
    expect(patched).toEqual([`/v1/robots/${AI}/realtime/sessions/s0`, '/resources/s1', `/resources/s${MAX_REMEMBERED_RESOURCES}`]);
  });
});
