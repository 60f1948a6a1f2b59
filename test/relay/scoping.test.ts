import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionGrants } from '../../src/relay/index.js';
import type { RelayCaller } from '../../src/relay/index.js';
import { KEY, recordingRelay, ROBOT, sendJson, startFakeUpstream, type FakeHandler, type FakeUpstream } from './helpers.js';

const SECRET = 'grant-secret-for-tests';
const grants = new SessionGrants(SECRET);
const base = 'http://relay.test/api/voice';

let upstream: FakeUpstream;
let rec: ReturnType<typeof recordingRelay>;
let ids: { aliceA: string; aliceB: string; bobA: string; adminMade: string };
const msg = (id: string, session_id: string) => ({ id, session_id, question: 'q', answer: `answer of ${session_id}` });
const M_ALICE = '11111111-1111-4111-8111-111111111111';
const M_ALICE_B = '22222222-2222-4222-8222-222222222222';
const M_BOB = '33333333-3333-4333-8333-333333333333';

const costRecord = (session_id: string, user: string, n: number) => ({
  session_id, user_identifier: user, created_at: '2024-05-01T00:00:00Z', turn_count: n, duration_ms: 1000 * n, total_tokens: 100 * n,
  input_text_tokens: 10 * n, input_audio_tokens: 20 * n, cached_tokens: 5 * n, output_text_tokens: 30 * n, output_audio_tokens: 35 * n, total_cost: 0.1 * n,
});

/** A small model of the service for the routes the relay scopes. */
const service: FakeHandler = (req, res) => {
  const url = new URL(req.url, 'http://u');
  const p = url.pathname;
  const sessions = [costRecord(ids.aliceA, 'alice', 1), costRecord(ids.bobA, 'bob', 2), costRecord(ids.aliceB, 'alice', 3), costRecord(ids.adminMade, 'alice', 4), costRecord(ids.bobA, 'alice', 5)];
  // The last record repeats bob's granted id under alice's name: neither of them may see it.
  if (p.endsWith('/realtime/sessions')) {
    const body = JSON.parse(req.body);
    const id = body.session_id ?? 'generated';
    res.setHeader('location', `${p}/${id}`);
    return sendJson(res, 201, { session_id: id, type: 'answer', sdp: 'v=0 answer' });
  }
  if (p.endsWith('/realtime-cost/sessions'))
    return sendJson(res, 200, { bot_id: ROBOT, model: 'm', session_count: 5, total_cost: 1.5, sessions, all_users: ['alice', 'bob'] });
  if (p.endsWith('/realtime-usage'))
    return sendJson(res, 200, { bot_id: ROBOT, session_count: 5, totals: { turn_count: 15, cached_tokens: 75, secret_metric: 9 }, sessions: sessions.map(({ total_cost: _, ...s }) => s) });
  if (p.endsWith('/realtime-cost'))
    return sendJson(res, 200, {
      bot_id: ROBOT, model: 'm', session_count: 5, total_turns: 15, total_duration_ms: 15000, cache_hit_rate: 0.1,
      items: [{ category: 'audio_input', tokens: 300, unit_price: 32, cost: 0.0096 }, { category: 'mystery', tokens: 1, unit_price: 1, cost: 1 }],
      total_cost: 1.5, totals: { input_tokens: 525, total_cost: 1.5, turn_count: 15 },
    });
  const m = p.match(/session\.messages\/(.+)$/);
  if (m) {
    const found = { [M_ALICE]: msg(M_ALICE, ids.aliceA), [M_ALICE_B]: msg(M_ALICE_B, ids.aliceB), [M_BOB]: msg(M_BOB, ids.bobA) }[m[1]!];
    return found ? sendJson(res, 200, found) : sendJson(res, 404, { detail: 'Message not found' });
  }
  return sendJson(res, 200, { ok: true, path: p, query: url.search });
};

const authorize = (req: Request): RelayCaller | null => {
  const user = req.headers.get('x-user');
  if (!user) return null;
  return { userIdentifier: user, role: req.headers.get('x-role') === 'admin' ? 'admin' : 'user' };
};

beforeAll(async () => {
  ids = { aliceA: await grants.mint('alice', ROBOT), aliceB: await grants.mint('alice', ROBOT), bobA: await grants.mint('bob', ROBOT), adminMade: crypto.randomUUID() };
  upstream = await startFakeUpstream(service);
  rec = recordingRelay({ upstream: upstream.url, apiKey: KEY, secret: SECRET, robots: '*', authorize });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.setHandler(service);
  upstream.seen.length = 0;
});

const as = (user: string | null, path: string, init: RequestInit & { json?: unknown } = {}, role = 'user') => {
  const headers = new Headers(init.headers);
  if (user) headers.set('x-user', user);
  headers.set('x-role', role);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  return rec.relay.fetch(new Request(base + path, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) }));
};

describe('authorize', () => {
  it('answers 401 when authorize returns null, before the upstream', async () => {
    const res = await as(null, `/v1/robots/${ROBOT}/realtime-usage`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(401);
    expect(upstream.seen).toHaveLength(0);
  });

  it('answers 401 (no upstream call) when authorize returns false or an invalid caller (#36 item 9: was 500)', async () => {
    for (const junk of [false, { userIdentifier: '', role: 'user' }, 'alice']) {
      const r = recordingRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: () => junk as never });
      const res = await r.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`));
      expect(res.status).toBe(401);
    }
    expect(upstream.seen).toHaveLength(0);
  });
});

describe('signaling and warmup for role user', () => {
  it('mints the session id and forces the caller user_identifier', async () => {
    const res = await as('alice', `/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', json: { type: 'offer', sdp: 'v=0', user_identifier: 'bob' } });
    expect(res.status).toBe(201);
    const sent = JSON.parse(upstream.seen[0]!.body);
    expect(sent.user_identifier).toBe('alice');
    expect(await grants.verify(sent.session_id, 'alice', ROBOT)).toBe(true);
    expect((await res.json()).session_id).toBe(sent.session_id);
  });

  it('lets a user reconnect to their own session only', async () => {
    let res = await as('alice', `/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', json: { type: 'offer', sdp: 'v=0', session_id: ids.aliceA } });
    expect(res.status).toBe(201);
    expect(JSON.parse(upstream.seen[0]!.body).session_id).toBe(ids.aliceA);
    for (const sid of [ids.bobA, ids.adminMade, 'made-up']) {
      res = await as('alice', `/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', json: { type: 'offer', sdp: 'v=0', session_id: sid } });
      expect(res.status, sid).toBe(404);
    }
    expect(upstream.seen).toHaveLength(1);
  });

  it('answers 502 when the upstream ignores the granted session id', async () => {
    upstream.setHandler((_req, res) => sendJson(res, 201, { session_id: 'other', type: 'answer', sdp: 'v=0' }));
    const res = await as('alice', `/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', json: { type: 'offer', sdp: 'v=0' } });
    expect(res.status).toBe(502);
  });

  it('forces user_identifier in warmup (also without a body) and checks its session_id', async () => {
    expect((await as('alice', `/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST' })).status).toBe(200);
    expect(JSON.parse(upstream.seen[0]!.body)).toEqual({ language: 'ja', user_identifier: 'alice' });
    expect((await as('alice', `/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', json: { user_identifier: 'bob', session_id: ids.aliceA } })).status).toBe(200);
    expect(JSON.parse(upstream.seen[1]!.body)).toEqual({ language: 'ja', user_identifier: 'alice', session_id: ids.aliceA });
    expect((await as('alice', `/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', json: { session_id: ids.bobA } })).status).toBe(404);
    expect(upstream.seen).toHaveLength(2);
  });

  it('accepts grants minted by another relay instance with the same secret (stateless)', async () => {
    const other = recordingRelay({ upstream: upstream.url, apiKey: 'another-key', secret: SECRET, robots: '*', authorize });
    const res = await other.relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'x-user': 'alice', 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp: 'v=0' }) }));
    const { session_id } = await res.json();
    expect((await as('alice', `/v1/robots/${ROBOT}/realtime-audio/download?session_id=${session_id}`)).status).toBe(200);
    expect((await as('bob', `/v1/robots/${ROBOT}/realtime-audio/download?session_id=${session_id}`)).status).toBe(404);
  });
});

describe('the session resource (RT: PATCH with trickled candidates, ICE restarts) for role user', () => {
  const FRAG = 'a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=candidate:1 1 udp 2122194687 192.0.2.2 40000 typ host\r\na=end-of-candidates\r\n';
  const patch = (user: string, sid: string, body = FRAG, type = 'application/trickle-ice-sdpfrag') =>
    as(user, `/v1/robots/${ROBOT}/realtime/sessions/${sid}`, { method: 'PATCH', headers: { 'content-type': type }, body });

  it('forwards the caller\'s own session: body and media type as sent, the answer fragment back', async () => {
    upstream.setHandler((req, res) => {
      res.writeHead(200, { 'content-type': 'application/trickle-ice-sdpfrag' });
      res.end('a=ice-ufrag:wxyz\r\na=ice-pwd:zyxwvutsrqponmlkjihgfedc\r\n');
    });
    const res = await patch('alice', ids.aliceA);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/trickle-ice-sdpfrag');
    expect(await res.text()).toContain('a=ice-ufrag:wxyz');
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]).toMatchObject({ method: 'PATCH', url: `/v1/robots/${ROBOT}/realtime/sessions/${ids.aliceA}`, body: FRAG });
    expect(upstream.seen[0]!.headers['content-type']).toBe('application/trickle-ice-sdpfrag');
    expect(upstream.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("answers 404 for another user's session, an unknown one or one no grant names, and forwards nothing", async () => {
    for (const sid of [ids.bobA, ids.adminMade, 'made-up']) expect((await patch('alice', sid)).status, sid).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it('refuses another media type (415) and an empty fragment (422) before the upstream', async () => {
    expect((await patch('alice', ids.aliceA, '{}', 'application/json')).status).toBe(415);
    expect((await patch('alice', ids.aliceA, '')).status).toBe(422);
    expect(upstream.seen).toHaveLength(0);
  });

  it('the 201 of signaling names the session resource under the relay prefix (Location)', async () => {
    const res = await as('alice', `/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', json: { type: 'offer', sdp: 'v=0' } });
    const { session_id } = await res.json();
    expect(res.headers.get('location')).toBe(`/api/voice/v1/robots/${ROBOT}/realtime/sessions/${session_id}`);
  });
});

describe("other users' sessions answer 404 without reaching the upstream", () => {
  const cases = (sid: string): [string, string, RequestInit & { json?: unknown }][] => [
    ['E14', `/v1/robots/${ROBOT}/realtime-audio/download?session_id=${sid}`, {}],
    ['E19', `/v1/${ROBOT}/session.messages?session_id=${sid}`, {}],
    ['E6', `/v1/${ROBOT}/message_rating?session_id=${sid}&message_id=${M_BOB}&rating=1`, { method: 'PATCH' }],
    ['E15', `/v1/${ROBOT}/sessions/${sid}`, { method: 'DELETE' }],
  ];

  it.each(['bobA', 'adminMade'] as const)('with %s', async (which) => {
    for (const [id, path, init] of cases(ids[which])) {
      const res = await as('alice', path, init);
      expect(res.status, id).toBe(404);
      expect(await res.json(), id).toEqual({ detail: 'Session not found' });
    }
    expect(upstream.seen).toHaveLength(0);
  });

  it('the owner reaches them', async () => {
    for (const [id, path, init] of cases(ids.bobA)) expect((await as('bob', path, init)).status, id).toBe(200);
    // E6 checked the message (E17) before the rating.
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET', 'GET', 'GET', 'PATCH', 'DELETE']);
  });

  it('E6 refuses a message of another session even with an owned session id', async () => {
    const res = await as('alice', `/v1/${ROBOT}/message_rating?session_id=${ids.aliceA}&message_id=${M_ALICE_B}&rating=1`, { method: 'PATCH' });
    expect(res.status).toBe(404);
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('E17 returns a message only when its session is the caller’s', async () => {
    let res = await as('alice', `/v1/${ROBOT}/session.messages/${M_ALICE}`);
    expect(res.status).toBe(200);
    expect((await res.json()).session_id).toBe(ids.aliceA);
    res = await as('alice', `/v1/${ROBOT}/session.messages/${M_BOB}`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).not.toContain(ids.bobA);
    expect(text).not.toContain('answer of');
  });

  it('admins reach every session', async () => {
    for (const [id, path, init] of cases(ids.adminMade)) expect((await as('ops', path, init, 'admin')).status, id).toBe(200);
    const res = await as('ops', `/v1/${ROBOT}/session.messages/${M_BOB}`, {}, 'admin');
    expect(res.status).toBe(200);
  });
});

describe('cost and usage reports for role user', () => {
  it('E12 lists only the caller’s granted sessions, with recomputed totals and no extra fields', async () => {
    const res = await as('alice', `/v1/robots/${ROBOT}/realtime-cost/sessions`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([ids.aliceA, ids.aliceB]);
    expect(body.session_count).toBe(2);
    expect(body.total_cost).toBe(0.4);
    expect(body.all_users).toBeUndefined();
    const admin = await (await as('ops', `/v1/robots/${ROBOT}/realtime-cost/sessions`, {}, 'admin')).json();
    expect(admin.session_count).toBe(5);
    expect(admin.all_users).toEqual(['alice', 'bob']);
  });

  it('E13 recomputes totals over the caller’s sessions and drops unattributable keys', async () => {
    const body = await (await as('alice', `/v1/robots/${ROBOT}/realtime-usage`)).json();
    expect(body.session_count).toBe(2);
    expect(body.sessions).toHaveLength(2);
    expect(body.totals).toEqual({ turn_count: 4, cached_tokens: 20 });
  });

  it('E11 is rebuilt from the caller’s E12 sessions', async () => {
    const body = await (await as('bob', `/v1/robots/${ROBOT}/realtime-cost?model=auto`)).json();
    expect(upstream.seen.map((s) => new URL(s.url, 'http://u').pathname).sort()).toEqual([`/v1/robots/${ROBOT}/realtime-cost`, `/v1/robots/${ROBOT}/realtime-cost/sessions`]);
    expect(body).toEqual({
      bot_id: ROBOT, model: 'm', session_count: 1, total_turns: 2, total_duration_ms: 2000,
      // cached / (text + audio + cached) = 10 / (20 + 40 + 10)
      cache_hit_rate: 0.1429,
      // Upstream cost 0.0096 for 300 audio tokens, bob has 40 of them; `mystery` is not attributable.
      items: [{ category: 'audio_input', tokens: 40, unit_price: 32, cost: 0.00128 }],
      total_cost: 0.2,
      totals: { input_tokens: 70, total_cost: 0.2, turn_count: 2 },
      // The window of bob's own sessions, not the robot's (#36 item 6).
      start_time: '2024-05-01T00:00:00Z',
      end_time: '2024-05-01T00:00:00Z',
    });
  });

  it('a user with no sessions sees empty reports', async () => {
    const body = await (await as('carol', `/v1/robots/${ROBOT}/realtime-cost`)).json();
    expect(body).toMatchObject({ session_count: 0, total_turns: 0, total_cost: 0, cache_hit_rate: 0, items: [{ category: 'audio_input', tokens: 0, cost: 0 }] });
  });
});

it('leaks the key in no response or log line of this file', async () => {
  const lines = await rec.transcript();
  expect(lines.length).toBeGreaterThan(30);
  for (const line of lines) {
    expect(line).not.toContain(KEY);
    expect(line).not.toContain(SECRET);
  }
});
