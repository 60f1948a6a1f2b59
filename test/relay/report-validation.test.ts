import { beforeAll, describe, expect, it } from 'vitest';
import { createRelay, SessionGrants } from '../../src/relay/index.js';
import { fakeUpstreamFor, KEY, ROBOT, sendJson } from './helpers.js';

// A user's report (E11/E12/E13) validates the caller's session records only: the relay cuts the
// upstream list to the records labelled with the caller before validating, so the work grows with
// the caller's sessions, not with every user's of the robot (docs/relay.md, "What a request
// costs"). What is returned is still validated: the top level, and each record of the caller's.

const SECRET = 'report-validation-secret';
let own: string;
let sessions: unknown[];
beforeAll(async () => {
  own = await new SessionGrants(SECRET).mint('alice', ROBOT);
});

const record = (id: unknown, user: unknown, more: Record<string, unknown> = {}) => ({ session_id: id, user_identifier: user, turn_count: 2, duration_ms: 1000, total_tokens: 10, input_text_tokens: 4, output_text_tokens: 6, total_cost: 0.5, ...more });
const upstream = fakeUpstreamFor((req, res) => {
  const path = req.url.split('?')[0]!;
  if (path.endsWith('/realtime-cost/sessions')) return sendJson(res, 200, { bot_id: ROBOT, model: 'auto', session_count: sessions.length, total_cost: 1, sessions });
  if (path.endsWith('/realtime-usage')) return sendJson(res, 200, { bot_id: ROBOT, session_count: sessions.length, totals: { turn_count: 4 }, sessions });
  if (path.endsWith('/realtime-cost')) return sendJson(res, 200, { bot_id: ROBOT, model: 'auto', session_count: 2, total_turns: 4, total_duration_ms: 2000, cache_hit_rate: 0, items: [{ category: 'text_input', tokens: 8, unit_price: 1, cost: 8 }], total_cost: 1 });
  sendJson(res, 404, { detail: 'Not found' });
});

const relay = () => createRelay({ upstream: upstream.url, apiKey: KEY, secret: SECRET, logger: () => {}, robots: '*', authorize: () => ({ userIdentifier: 'alice', role: 'user' }) });
const REPORTS = [
  ['E13', `/v1/robots/${ROBOT}/realtime-usage`],
  ['E12', `/v1/robots/${ROBOT}/realtime-cost/sessions`],
  ['E11', `/v1/robots/${ROBOT}/realtime-cost`],
] as const;
const get = (path: string) => relay().fetch(new Request(`http://relay.test/api/voice${path}`));

describe("a user's report validates the caller's records only", () => {
  it.each(REPORTS)("%s: other users' records are neither validated nor returned", async (_id, path) => {
    // Records the schema refuses (a numeric id, a text count, not an object), none of them alice's.
    sessions = [record(own, 'alice'), record(42, 'bob', { turn_count: 'many' }), null, 'junk', record('00000000-0000-4000-8000-000000000002', 'carol', { created_at: 'yesterday' })];
    const res = await get(path);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.session_count).toBe(1);
    if (body.sessions) expect(body.sessions).toEqual([expect.objectContaining({ session_id: own, user_identifier: 'alice', turn_count: 2 })]);
  });

  it.each(REPORTS)("%s: a malformed record of the caller's still answers 502", async (_id, path) => {
    sessions = [record(own, 'alice', { turn_count: 'many' }), record('00000000-0000-4000-8000-000000000001', 'bob')];
    const res = await get(path);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ detail: 'Invalid upstream response' });
  });

  it('a report whose sessions are not a list still answers 502', async () => {
    sessions = { alice: record(own, 'alice') } as unknown as unknown[];
    const res = await get(`/v1/robots/${ROBOT}/realtime-usage`);
    expect(res.status).toBe(502);
  });

  it("a record labelled with the caller but not granted to them stays out (validated, then verified)", async () => {
    sessions = [record(own, 'alice'), record('00000000-0000-4000-8000-000000000003', 'alice')];
    const body = await (await get(`/v1/robots/${ROBOT}/realtime-usage`)).json();
    expect(body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([own]);
  });
});
