import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// Issue 47: the widget's sources (E18) and Show passage (E9) through the relay for an admin.
// E9 has no robot in its path: only an admin whose robots are not limited reaches it. Users'
// scoping of E17/E18/E6/E9 is another change; until then they get the refusal of anything not granted.

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) =>
    req.url.startsWith('/pdf/highlight') ? sendJson(res, 200, { success: true, positions: [], message: 'none' }) : sendJson(res, 200, { message_id: 'm1', references: [] }),
  );
});
afterAll(() => upstream.close());

const base = 'http://relay.test/api/voice';
const e9 = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file_id: 'f1', text: 'Descale monthly.', page: 2 }) };
const relayAs = (caller: Record<string, unknown>) => createRelay({ upstream: upstream.url, apiKey: KEY, robots: '*', authorize: () => caller as never });

describe('E18 and E9 through the relay', () => {
  it('an admin reaches both (forwarded with the key)', async () => {
    const relay = relayAs({ role: 'admin', userIdentifier: 'qa' });
    const refs = await relay.fetch(new Request(`${base}/v1/question/references/${ROBOT}?message_id=m1`));
    expect(refs.status).toBe(200);
    expect(await refs.json()).toEqual({ message_id: 'm1', references: [] });
    const before = upstream.seen.length;
    const highlight = await relay.fetch(new Request(`${base}/pdf/highlight`, e9));
    expect(highlight.status).toBe(200);
    expect(upstream.seen.length).toBe(before + 1);
    expect(upstream.seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('an admin limited to some robots cannot reach E9 (it names no robot); a user is refused both, nothing forwarded', async () => {
    const before = upstream.seen.length;
    expect((await relayAs({ role: 'admin', userIdentifier: 'qa', robots: [ROBOT] }).fetch(new Request(`${base}/pdf/highlight`, e9))).status).toBe(403);
    const user = relayAs({ role: 'user', userIdentifier: 'alice' });
    expect((await user.fetch(new Request(`${base}/pdf/highlight`, e9))).status).toBe(403);
    expect((await user.fetch(new Request(`${base}/v1/question/references/${ROBOT}?message_id=m1`))).status).toBe(404);
    expect(upstream.seen.length).toBe(before);
  });
});
