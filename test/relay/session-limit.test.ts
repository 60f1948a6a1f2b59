import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRelay, type RelayOptions } from '../../src/relay/index.js';
import { SessionSlots } from '../../src/relay/session-slots.js';
import { fakeUpstreamFor, KEY, ROBOT, sendJson, type FakeHandler } from './helpers.js';

// Issue 46 (relay): a deleted session's id could be signaled again as a "reconnect" without a slot,
// and taking a slot scanned every holder once 10,000 users held one.

const base = 'http://relay.test/api/voice';

const service: FakeHandler = (req, res) => {
  if (req.url.endsWith('/realtime/sessions')) return sendJson(res, 201, { session_id: JSON.parse(req.body).session_id, type: 'answer', sdp: 'v=0 answer' });
  return sendJson(res, 200, { session_id: req.url.split('/').pop(), status: 'deleted' });
};
const upstream = fakeUpstreamFor(service);

const relayWith = (options: Partial<RelayOptions> = {}) =>
  createRelay({ upstream: upstream.url, apiKey: KEY, secret: 'session-limit-deployment-secret', logger: () => {}, robots: '*', authorize: (req) => ({ userIdentifier: req.headers.get('x-user') ?? 'alice', role: 'user' }), ...options });
const offer = (relay: ReturnType<typeof relayWith>, sessionId?: string) =>
  relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': 'alice' }, body: JSON.stringify({ type: 'offer', sdp: 'v=0', ...(sessionId ? { session_id: sessionId } : {}) }) }));
const remove = (relay: ReturnType<typeof relayWith>, sessionId: string) =>
  relay.fetch(new Request(`${base}/v1/${ROBOT}/sessions/${sessionId}`, { method: 'DELETE', headers: { 'x-user': 'alice' } }));

describe('maxSessionsPerUser cannot be bypassed by reconnecting under a deleted id', () => {
  it('with limit 1, signaling a deleted session again takes the slot: a second call at once is a 429', async () => {
    const relay = relayWith({ maxSessionsPerUser: 1 });
    const first = (await (await offer(relay)).json()).session_id as string;
    expect((await remove(relay, first)).status).toBe(200);
    // The deleted id comes back as a "reconnect": the service creates a new session under it.
    expect((await offer(relay, first)).status).toBe(201);
    upstream.seen.length = 0;
    expect((await offer(relay)).status).toBe(429);
    // And the same trick once more does not give a third call either.
    const second = await offer(relay, first);
    expect(second.status).toBe(201); // the same session, already counted: no new slot needed
    expect((await offer(relay)).status).toBe(429);
    expect(upstream.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('a reconnect of a live session this instance counts takes no second slot', async () => {
    const relay = relayWith({ maxSessionsPerUser: 1 });
    const id = (await (await offer(relay)).json()).session_id as string;
    expect((await offer(relay, id)).status).toBe(201);
    expect((await offer(relay, id)).status).toBe(201);
  });

  it('a reconnect under a granted id this instance never counted (another instance, or expired) takes a slot', async () => {
    const other = relayWith({ maxSessionsPerUser: 1 });
    const id = (await (await offer(other)).json()).session_id as string;
    const relay = relayWith({ maxSessionsPerUser: 1 });
    expect((await offer(relay, id)).status).toBe(201);
    expect((await offer(relay)).status).toBe(429);
  });
});

describe('slot bookkeeping does constant work per new session', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Counts the steps of every Map iterator and every Array filter/find/some while `run` runs. */
  function countWork(run: () => void): number {
    let steps = 0;
    const mapIterator = Object.getPrototypeOf(new Map().entries()) as { next: () => unknown };
    const next = mapIterator.next;
    const filter = Array.prototype.filter;
    vi.spyOn(mapIterator, 'next').mockImplementation(function (this: unknown) {
      steps++;
      return next.call(this);
    });
    vi.spyOn(Array.prototype, 'filter').mockImplementation(function (this: unknown[], ...args: Parameters<typeof filter>) {
      steps += this.length;
      return filter.apply(this, args);
    });
    try {
      run();
    } finally {
      vi.restoreAllMocks();
    }
    return steps;
  }

  const slotsHeldBy = (users: number) => {
    const now = 1_000_000;
    const slots = new SessionSlots(3, 60_000, () => now);
    for (let i = 0; i < users; i++) slots.take(`user-${i}`);
    return slots;
  };

  it('a new session at 20,000 users holding costs what it costs at 100', () => {
    const small = countWork(() => slotsHeldBy(100).take('newcomer'));
    const few = slotsHeldBy(100);
    const many = slotsHeldBy(20_000);
    const atFew = countWork(() => few.take('newcomer'));
    const atMany = countWork(() => many.take('newcomer'));
    expect(small).toBeGreaterThan(0);
    expect(atMany).toBeLessThanOrEqual(atFew + 2);
  });

  it('users whose slots expired are still dropped, so memory follows the active users', () => {
    let now = 1_000_000;
    const slots = new SessionSlots(3, 60_000, () => now);
    for (let i = 0; i < 1_000; i++) slots.take(`old-${i}`);
    now += 60_000;
    for (let i = 0; i < 1_000; i++) slots.take(`new-${i}`);
    expect(slots.users).toBeLessThanOrEqual(1_000 + 2);
    expect(slots.held('new-999')).toBe(1);
    expect(slots.held('old-1')).toBe(0);
  });
});
