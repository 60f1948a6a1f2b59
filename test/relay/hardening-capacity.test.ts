import { describe, expect, it } from 'vitest';
import { createRelay, RELAY_ERROR_HEADER, type RelayOptions } from '../../src/relay/index.js';
import { SessionSlots } from '../../src/relay/session-slots.js';
import { fakeUpstreamFor, KEY, OAI_SESSION, ROBOT, sendJson, type FakeHandler } from './helpers.js';

// Issue 36, item 4 (and #37 item 7): one user cannot hold every realtime slot, and a busy upstream
// reaches the browser as the busy answer it is, with when to come back.

const base = 'http://relay.test/api/voice';

const service: FakeHandler = (req, res) => {
  const body = JSON.parse(req.body || '{}');
  if (req.url.endsWith('/realtime/sessions')) return sendJson(res, 201, { session_id: body.session_id, type: 'answer', sdp: 'v=0 answer' });
  if (req.url.startsWith('/v1/realtime/client_secrets')) return sendJson(res, 200, { value: 'ek_test', expires_at: 1, session: OAI_SESSION });
  return sendJson(res, 200, { success: true });
};

const upstream = fakeUpstreamFor(service);

const relayWith = (options: Partial<RelayOptions> = {}) =>
  createRelay({ upstream: upstream.url, apiKey: KEY, secret: 'capacity-deployment-secret', logger: () => {}, robots: '*', authorize: (req) => ({ userIdentifier: req.headers.get('x-user') ?? 'alice', role: req.headers.get('x-role') === 'admin' ? 'admin' : 'user' }), ...options });
const offer = (relay: ReturnType<typeof relayWith>, user: string, role = 'user') =>
  relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': user, 'x-role': role }, body: JSON.stringify({ type: 'offer', sdp: 'v=0' }) }));
const secret = (relay: ReturnType<typeof relayWith>, user: string) =>
  relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/client_secrets`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': user }, body: '{}' }));

describe('per-user limit of concurrent realtime sessions', () => {
  it('the default is 3: a fourth session of one user is a 429 with Retry-After that reaches no upstream; others still get theirs', async () => {
    const relay = relayWith();
    for (let i = 0; i < 3; i++) expect((await offer(relay, 'alice')).status).toBe(201);
    upstream.seen.length = 0;
    const refused = await offer(relay, 'alice');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: 'Too many concurrent sessions for this user (at most 3)' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The OpenAI-compatible routes count the same slots.
    expect((await secret(relay, 'alice')).status).toBe(429);
    expect(upstream.seen).toHaveLength(0);
    expect((await offer(relay, 'bob')).status).toBe(201);
    expect((await offer(relay, 'qa', 'admin')).status).toBe(201);
  });

  it('a failed signaling gives its slot back; a deleted session (E15) gives its slot back', async () => {
    const relay = relayWith({ maxSessionsPerUser: 1 });
    upstream.setHandler((_req, res) => sendJson(res, 500, { detail: 'boom' }));
    expect((await offer(relay, 'alice')).status).toBe(502);
    upstream.setHandler(service);
    const res = await offer(relay, 'alice');
    expect(res.status).toBe(201);
    const { session_id } = await res.json();
    expect((await offer(relay, 'alice')).status).toBe(429);
    const deleted = await relay.fetch(new Request(`${base}/v1/${ROBOT}/sessions/${session_id}`, { method: 'DELETE', headers: { 'x-user': 'alice' } }));
    expect(deleted.status).toBe(200);
    expect((await offer(relay, 'alice')).status).toBe(201);
  });

  it('a slot frees itself after sessionHoldMs, and Retry-After says when (fake time)', () => {
    let now = 1_000_000;
    const slots = new SessionSlots(2, 60_000, () => now);
    slots.take('alice');
    now += 20_000;
    slots.take('alice');
    expect(() => slots.take('alice')).toThrow(expect.objectContaining({ status: 429, headers: { 'retry-after': '40' } }));
    now += 40_000;
    expect(slots.held('alice')).toBe(1);
    expect(() => slots.take('alice')).not.toThrow();
  });
});

describe('upstream busy and relay time-outs, as the client can tell them', () => {
  it.each([
    [503, '120', 'Service unavailable, try again later'],
    [429, 'Wed, 21 Oct 2026 07:28:00 GMT', 'Upstream rate limit reached, try again later'],
  ])('an upstream %i passes as such with its Retry-After', async (status, retryAfter, detail) => {
    upstream.setHandler((_req, res) => sendJson(res, status, { detail: 'pool db-7.internal exhausted' }, { 'retry-after': retryAfter }));
    const res = await offer(relayWith(), 'carol');
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    expect(await res.json()).toEqual({ detail });
  });

  it('a Retry-After that is neither seconds nor a date is dropped', async () => {
    upstream.setHandler((_req, res) => sendJson(res, 503, {}, { 'retry-after': 'soon, see http://10.0.0.1' }));
    const res = await offer(relayWith(), 'dave');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it("the relay's own 504 carries x-relay-error: upstream_timeout", async () => {
    upstream.setHandler(() => {});
    const res = await offer(relayWith({ timeoutMs: 50 }), 'erin');
    expect(res.status).toBe(504);
    expect(res.headers.get(RELAY_ERROR_HEADER)).toBe('upstream_timeout');
    expect(await res.json()).toEqual({ detail: 'Upstream timed out' });
  });
});
