import * as z from 'zod/mini';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionGrants } from '../../src/relay/grant.js';
import { createRelayWithRoutes } from '../../src/relay/relay.js';
import { forUser } from '../../src/relay/policies/scope.js';
import type { RelayRoute } from '../../src/relay/route-types.js';
import type { Endpoint } from '../../src/schemas/index.js';
import { KEY, ROBOT, startFakeUpstream, type FakeUpstream } from './helpers.js';

// Route kinds the table is designed for (one entry each): a non-JSON body forwarded as received,
// an upstream endpoint (the table's `upstream`) whose path differs from the relay's, and session scoping by the path's session id.
// The trickle-ICE PATCH and the OpenAI-compatible `calls` route are modelled here as such entries.

const SECRET = 'route-kinds-secret';
const trickle: Endpoint = {
  id: 'RS_PATCH', method: 'PATCH', path: '/v1/robots/{ai_id}/realtime/sessions/{session_id}',
  params: z.strictObject({ ai_id: z.uuid(), session_id: z.string() }), response: z.unknown(), status: 204, auth: true,
};
const calls: Endpoint = {
  id: 'OA_CALLS', method: 'POST', path: '/v1/robots/{ai_id}/realtime/calls',
  params: z.strictObject({ ai_id: z.uuid() }), response: z.unknown(), status: 201, auth: true,
  upstream: { id: 'UP_CALLS', method: 'POST', path: '/v1/realtime/calls', params: z.strictObject({}), response: z.unknown(), status: 201, auth: true },
};
const routes: RelayRoute[] = [
  { endpoint: trickle, user: forUser.sessionInPath, textBody: { contentTypes: ['application/trickle-ice-sdpfrag'] } },
  { endpoint: calls, user: forUser.sessionInPath, textBody: { contentTypes: ['application/sdp'] } },
];

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => {
    if (req.method === 'PATCH') return res.writeHead(204).end();
    res.writeHead(201, { 'content-type': 'application/sdp' }).end(`v=0 answer to ${req.body.length} bytes`);
  });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.seen.length = 0;
});

const relay = (role: 'user' | 'admin') =>
  createRelayWithRoutes({ upstream: upstream.url, apiKey: KEY, secret: SECRET, logger: () => {}, robots: '*', authorize: () => ({ userIdentifier: 'alice', role }) }, routes);
const send = (role: 'user' | 'admin', method: string, path: string, type: string, body: string) =>
  relay(role).fetch(new Request(`http://relay.test/api/voice${path}`, { method, headers: { 'content-type': type }, body }));
const FRAG = 'a=ice-ufrag:EsAw\r\na=candidate:1 1 UDP 2130706431 192.0.2.1 3478 typ host\r\n';

describe('route kinds', () => {
  it('forwards a non-JSON body as received, with its content type', async () => {
    const res = await send('admin', 'PATCH', `/v1/robots/${ROBOT}/realtime/sessions/s-1`, 'application/trickle-ice-sdpfrag', FRAG);
    expect(res.status).toBe(204);
    expect(upstream.seen[0]).toMatchObject({ method: 'PATCH', url: `/v1/robots/${ROBOT}/realtime/sessions/s-1`, body: FRAG });
    expect(upstream.seen[0]!.headers['content-type']).toBe('application/trickle-ice-sdpfrag');
  });

  it('refuses another content type (415) and a missing body (422) before the upstream', async () => {
    let res = await send('admin', 'PATCH', `/v1/robots/${ROBOT}/realtime/sessions/s-1`, 'application/json', '{}');
    expect(res.status).toBe(415);
    res = await send('admin', 'PATCH', `/v1/robots/${ROBOT}/realtime/sessions/s-1`, 'application/trickle-ice-sdpfrag', '');
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
    expect(upstream.seen).toHaveLength(0);
  });

  it('maps to a different upstream path and passes a non-JSON answer through', async () => {
    const res = await send('admin', 'POST', `/v1/robots/${ROBOT}/realtime/calls`, 'application/sdp', 'v=0 offer');
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/sdp');
    expect(await res.text()).toBe('v=0 answer to 9 bytes');
    expect(upstream.seen[0]).toMatchObject({ method: 'POST', url: '/v1/realtime/calls', body: 'v=0 offer' });
  });

  it('scopes a user by the session id in the path', async () => {
    const own = await new SessionGrants(SECRET).mint('alice', ROBOT);
    const other = await new SessionGrants(SECRET).mint('bob', ROBOT);
    expect((await send('user', 'PATCH', `/v1/robots/${ROBOT}/realtime/sessions/${other}`, 'application/trickle-ice-sdpfrag', FRAG)).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
    expect((await send('user', 'PATCH', `/v1/robots/${ROBOT}/realtime/sessions/${own}`, 'application/trickle-ice-sdpfrag', FRAG)).status).toBe(204);
    expect(upstream.seen).toHaveLength(1);
  });

  it('answers preflights for the new methods', async () => {
    const r = createRelayWithRoutes({ upstream: upstream.url, apiKey: KEY, logger: () => {}, allowedOrigins: ['http://app.test'] }, routes);
    const res = await r.fetch(new Request(`http://relay.test/api/voice/v1/robots/${ROBOT}/realtime/sessions/s-1`, { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'PATCH' } }));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('PATCH');
  });
});
