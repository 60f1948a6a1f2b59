import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, SessionGrants, type RelayCaller, type RelayLogEntry, type RelayOptions, type RelayServer } from '../../src/relay/index.js';
import { fakeUpstreamFor, KEY, OAI_SESSION, rawGet, ROBOT, sendJson, type FakeHandler } from './helpers.js';

// Issue 36, items 1, 2 and 9 (the relay's part): who may reach the relay (its Host), which robots a
// user may reach, grants bound to user and robot per deployment, and what `authorize` may return.

const OTHER_ROBOT = '0a0b0c0d-1e1f-4a4b-8c8d-9e9f0a0b0c0d';
const base = 'http://relay.test/api/voice';

const service: FakeHandler = (req, res) => {
  const body = JSON.parse(req.body || '{}');
  if (req.url.endsWith('/realtime/sessions')) return sendJson(res, 201, { session_id: body.session_id, type: 'answer', sdp: 'v=0 answer' });
  if (req.url.startsWith('/v1/realtime/client_secrets')) return sendJson(res, 200, { value: 'ek_test', expires_at: 1, session: OAI_SESSION });
  return sendJson(res, 200, { bot_id: ROBOT, session_count: 0, sessions: [], totals: {} });
};

const upstream = fakeUpstreamFor(service);

const byHeader = (req: Request): RelayCaller | null => {
  const user = req.headers.get('x-user');
  const robots = req.headers.get('x-robots');
  return user ? { userIdentifier: user, role: req.headers.get('x-role') === 'admin' ? 'admin' : 'user', ...(robots ? { robots: robots.split(',') } : {}) } : null;
};
const relayWith = (options: Partial<RelayOptions> = {}) => createRelay({ upstream: upstream.url, apiKey: KEY, secret: 'access-deployment-secret', logger: () => {}, robots: '*', authorize: byHeader, ...options });
const get = (relay: { fetch(r: Request): Promise<Response> }, path: string, headers: Record<string, string>) => relay.fetch(new Request(base + path, { headers }));
const offer = (relay: { fetch(r: Request): Promise<Response> }, robot: string, headers: Record<string, string>, session_id?: string) =>
  relay.fetch(new Request(`${base}/v1/robots/${robot}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ type: 'offer', sdp: 'v=0', ...(session_id ? { session_id } : {}) }) }));

describe('item 1: DNS rebinding (allowedHosts)', () => {
  let server: RelayServer;
  beforeAll(async () => {
    server = await serveRelay(createRelay({ upstream: upstream.url, apiKey: KEY, logger: () => {}, allowedHosts: ['loopback', 'relay.dev.test'] }), { port: 0 });
  });
  afterAll(() => server.close());

  it('refuses a request naming another host, even with a matching Origin (403, nothing forwarded)', async () => {
    const port = Number(new URL(server.url).port);
    const host = `rebind.attacker.example:${port}`;
    const res = await rawGet(port, `/api/voice/v1/robots/${ROBOT}/realtime-usage`, { host, origin: `http://${host}` });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toEqual({ detail: 'Host not allowed' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('answers loopback names and the configured ones', async () => {
    const port = Number(new URL(server.url).port);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `app.localhost:${port}`, `relay.dev.test:${port}`]) {
      expect((await rawGet(port, `/api/voice/v1/robots/${ROBOT}/realtime-usage`, { host })).status, host).toBe(200);
    }
  });
});

describe('item 2: robots and grants', () => {
  it('createRelay throws when authorize is given without robots, and says so', () => {
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, authorize: byHeader })).toThrow(/robots is required with authorize/);
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, authorize: byHeader, robots: [''] })).toThrow(/robots/);
  });

  it('a user reaches only the listed robots on every route (403, nothing forwarded); an admin every robot', async () => {
    const relay = relayWith({ robots: [ROBOT] });
    expect((await get(relay, `/v1/robots/${ROBOT}/realtime-usage`, { 'x-user': 'alice' })).status).toBe(200);
    upstream.seen.length = 0;
    for (const [method, path] of [
      ['GET', `/v1/robots/${OTHER_ROBOT}/realtime-usage`],
      ['POST', `/v1/robots/${OTHER_ROBOT}/realtime/client_secrets`],
      ['POST', `/v1/robots/${OTHER_ROBOT}/realtime/warmup`],
      ['GET', `/v1/${OTHER_ROBOT}/session.messages?session_id=x`],
    ] as const) {
      const res = await relay.fetch(new Request(base + path, { method, headers: { 'x-user': 'alice', 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) }));
      expect(res.status, path).toBe(403);
    }
    expect((await offer(relay, OTHER_ROBOT, { 'x-user': 'alice' })).status).toBe(403);
    expect(upstream.seen).toHaveLength(0);
    expect((await get(relay, `/v1/robots/${OTHER_ROBOT}/realtime-usage`, { 'x-user': 'qa', 'x-role': 'admin' })).status).toBe(200);
  });

  it("authorize's robots narrow one caller further, admins included", async () => {
    const relay = relayWith({ robots: '*' });
    expect((await get(relay, `/v1/robots/${OTHER_ROBOT}/realtime-usage`, { 'x-user': 'alice', 'x-robots': ROBOT })).status).toBe(403);
    expect((await get(relay, `/v1/robots/${ROBOT}/realtime-usage`, { 'x-user': 'alice', 'x-robots': ROBOT })).status).toBe(200);
    expect((await get(relay, `/v1/robots/${OTHER_ROBOT}/realtime-usage`, { 'x-user': 'qa', 'x-role': 'admin', 'x-robots': ROBOT })).status).toBe(403);
  });

  it("a user's session on one robot is not theirs on another robot", async () => {
    const relay = relayWith();
    const res = await offer(relay, ROBOT, { 'x-user': 'alice' });
    expect(res.status).toBe(201);
    const { session_id } = await res.json();
    expect((await offer(relay, ROBOT, { 'x-user': 'alice' }, session_id)).status).toBe(201);
    upstream.seen.length = 0;
    expect((await offer(relay, OTHER_ROBOT, { 'x-user': 'alice' }, session_id)).status).toBe(404);
    expect((await get(relay, `/v1/${OTHER_ROBOT}/session.messages?session_id=${session_id}`, { 'x-user': 'alice' })).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
    expect(await new SessionGrants('access-deployment-secret').verify(session_id, 'alice', OTHER_ROBOT)).toBe(false);
  });

  it('a second deployment on the same key with its own secret does not accept the first one\'s alice', async () => {
    const first = relayWith({ secret: 'deployment-one-secret' });
    const second = relayWith({ secret: 'deployment-two-secret' });
    const { session_id } = await (await offer(first, ROBOT, { 'x-user': 'alice' })).json();
    upstream.seen.length = 0;
    expect((await get(second, `/v1/${ROBOT}/session.messages?session_id=${session_id}`, { 'x-user': 'alice' })).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it('warns at creation when authorize runs without a secret', () => {
    const logs: RelayLogEntry[] = [];
    createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: byHeader, logger: (e) => logs.push(e) });
    expect(logs).toEqual([expect.objectContaining({ level: 'warn', message: expect.stringMatching(/authorize without a secret/) })]);
    logs.length = 0;
    createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: byHeader, secret: 'a-deployment-secret', logger: (e) => logs.push(e) });
    expect(logs).toEqual([]);
  });

  it('refuses a secret shorter than 16 characters: a weak grant key, and a string every answer is scanned for (a secret "s" withheld every answer holding an s)', () => {
    for (const secret of ['x', 's', 'deployment-1', '']) {
      expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: byHeader, secret }), JSON.stringify(secret)).toThrow(/secret must be a string of at least 16 characters/);
    }
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: byHeader, secret: 42 as never })).toThrow(/secret must be a string/);
  });
});

describe('item 9: authorize results and time; user ids on the OpenAI routes', () => {
  it('false or junk from authorize is a 401, not a 500', async () => {
    for (const junk of [false, 42, 'alice', { role: 'user' }, { userIdentifier: 'a', role: 'owner' }]) {
      const relay = relayWith({ authorize: async () => junk as never });
      expect((await get(relay, `/v1/robots/${ROBOT}/realtime-usage`, {})).status, JSON.stringify(junk)).toBe(401);
    }
    expect(upstream.seen).toHaveLength(0);
  });

  it('an authorize hook that never settles is answered 503 after authorizeTimeoutMs, and nothing is forwarded', async () => {
    const logs: RelayLogEntry[] = [];
    const relay = relayWith({ authorize: () => new Promise<never>(() => {}), authorizeTimeoutMs: 50, logger: (e) => logs.push(e) });
    const res = await get(relay, `/v1/robots/${ROBOT}/realtime-usage`, {});
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ detail: 'Authorization timed out' });
    expect(logs.at(-1)).toMatchObject({ status: 503, reason: 'authorize did not settle within 50 ms' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('a non-ASCII user identifier reaches the OpenAI routes, percent-encoded in the header', async () => {
    const direct = relayWith({ authorize: () => ({ userIdentifier: 'ユーザー42', role: 'user' }) });
    const second = await direct.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/client_secrets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(second.status).toBe(200);
    expect(upstream.seen[0]!.headers['openai-safety-identifier']).toBe(encodeURIComponent('ユーザー42'));
  });
});
