import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, SessionGrants } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// report() of one call through a relay scoping an end user (role `user`): E11/E12/E13 for that call
// are asked with the call's own window, and the relay forwards that window and nothing wider: one
// upstream request per report endpoint (two for E11: its summary and the E12 list it is rebuilt
// from), never an unwindowed list of the robot's history, never a request per session.

const SECRET = 'report-scoping-secret';
const WINDOW = { start_time: '2026-11-24T10:00:00Z', end_time: '2026-11-24T10:05:00Z' };
let upstream: FakeUpstream;
let own: string;

beforeAll(async () => {
  own = await new SessionGrants(SECRET).mint('alice', ROBOT);
  const record = (id: string, user: string) => ({ session_id: id, user_identifier: user, turn_count: 2, duration_ms: 1000, total_tokens: 10, input_text_tokens: 4, output_text_tokens: 6, total_cost: 0.5 });
  const sessions = [record(own, 'alice'), record('00000000-0000-4000-8000-000000000001', 'bob')];
  upstream = await startFakeUpstream((req, res) => {
    const path = req.url.split('?')[0]!;
    if (path.endsWith('/realtime-cost/sessions')) return sendJson(res, 200, { bot_id: ROBOT, model: 'auto', session_count: 2, total_cost: 1, sessions });
    if (path.endsWith('/realtime-usage')) return sendJson(res, 200, { bot_id: ROBOT, session_count: 2, totals: { turn_count: 4 }, sessions });
    if (path.endsWith('/realtime-cost')) return sendJson(res, 200, { bot_id: ROBOT, model: 'auto', session_count: 2, total_turns: 4, total_duration_ms: 2000, cache_hit_rate: 0, items: [{ category: 'text_input', tokens: 8, unit_price: 1, cost: 8 }], total_cost: 1 });
    sendJson(res, 404, { detail: 'Not found' });
  });
});
afterAll(() => upstream.close());

const relay = () => createRelay({ upstream: upstream.url, apiKey: KEY, secret: SECRET, logger: () => {}, robots: '*', authorize: () => ({ userIdentifier: 'alice', role: 'user' }) });
const query = new URLSearchParams(WINDOW).toString();

describe("a user's report of one call", () => {
  it.each([
    ['E13', `/v1/robots/${ROBOT}/realtime-usage`, [`/v1/robots/${ROBOT}/realtime-usage`]],
    ['E12', `/v1/robots/${ROBOT}/realtime-cost/sessions`, [`/v1/robots/${ROBOT}/realtime-cost/sessions`]],
    ['E11', `/v1/robots/${ROBOT}/realtime-cost`, [`/v1/robots/${ROBOT}/realtime-cost`, `/v1/robots/${ROBOT}/realtime-cost/sessions`]],
  ])('%s forwards the window asked for and nothing else', async (_id, path, asked) => {
    upstream.seen.length = 0;
    const res = await relay().fetch(new Request(`http://relay.test/api/voice${path}?${query}`));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.session_count).toBe(1);
    if (body.sessions) expect(body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([own]);
    expect(upstream.seen.map((r) => r.url.split('?')[0]).sort()).toEqual([...asked].sort());
    for (const r of upstream.seen) {
      const q = new URL(r.url, 'http://x').searchParams;
      expect([q.get('start_time'), q.get('end_time')]).toEqual([WINDOW.start_time, WINDOW.end_time]);
    }
  });
});
