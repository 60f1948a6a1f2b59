import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RelayCaller } from '../../src/relay/index.js';
import { KEY, recordingRelay, ROBOT, sendJson, startFakeUpstream, type FakeHandler, type FakeUpstream } from './helpers.js';

// Issue 27: a page reload resumes its call by offering again with the stored session id
// (`resume: true`). Through the relay that offer must reach the service only for the user the
// session was made for: anyone else gets the 404 of an unknown session and nothing is forwarded.

const base = 'http://relay.test/api/voice';
const FRAG = 'a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=candidate:1 1 udp 2122194687 192.0.2.2 40000 typ host\r\n';

/** The service: answers every offer under the session id it was given, counting nothing itself (the fake upstream counts). */
const service: FakeHandler = (req, res) => {
  if (req.method === 'PATCH') {
    res.writeHead(204);
    return res.end();
  }
  const body = JSON.parse(req.body || '{}');
  if (req.url.endsWith('/realtime/sessions')) return sendJson(res, 201, { session_id: body.session_id, type: 'answer', sdp: 'v=0 answer' });
  return sendJson(res, 200, { success: true });
};

const authorize = (req: Request): RelayCaller | null => {
  const user = req.headers.get('x-user');
  return user ? { userIdentifier: user, role: req.headers.get('x-role') === 'admin' ? 'admin' : 'user' } : null;
};

let upstream: FakeUpstream;
let relay: ReturnType<typeof recordingRelay>['relay'];
let alices: string;

function call(user: string, path: string, init: { method?: string; json?: unknown; body?: string; type?: string } = {}, role = 'user', through = relay) {
  const headers = new Headers({ 'x-user': user, 'x-role': role });
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  if (init.type) headers.set('content-type', init.type);
  const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
  return through.fetch(new Request(base + path, { method: init.method ?? 'POST', headers, ...(body !== undefined ? { body } : {}) }));
}
const offer = (user: string, session_id?: string, extra: Record<string, unknown> = {}, role = 'user', through = relay) =>
  call(user, `/v1/robots/${ROBOT}/realtime/sessions`, { json: { type: 'offer', sdp: 'v=0', ...(session_id !== undefined ? { session_id } : {}), ...extra } }, role, through);

beforeAll(async () => {
  upstream = await startFakeUpstream(service);
  relay = recordingRelay({ upstream: upstream.url, apiKey: KEY, secret: 'resume-scoping-secret', robots: '*', authorize }).relay;
  const first = await offer('alice');
  expect(first.status).toBe(201);
  alices = (await first.json()).session_id;
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.setHandler(service);
  upstream.seen.length = 0;
});

describe('resuming a session through the relay (a reload with resume: true)', () => {
  it('the owner resumes: the same session id reaches the service and comes back', async () => {
    const res = await offer('alice', alices);
    expect(res.status).toBe(201);
    expect((await res.json()).session_id).toBe(alices);
    expect(upstream.seen).toHaveLength(1);
    expect(JSON.parse(upstream.seen[0]!.body)).toMatchObject({ session_id: alices, user_identifier: 'alice' });
  });

  it("another user's resume answers 404 (as an unknown session) and forwards nothing", async () => {
    const res = await offer('bob', alices);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Session not found' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('claiming to be the owner in the body changes nothing', async () => {
    expect((await offer('bob', alices, { user_identifier: 'alice' })).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it('altered spellings of the id are unknown sessions, not the owner’s', async () => {
    const variants = [alices.toUpperCase(), ` ${alices}`, `${alices.slice(0, -1)}${alices.endsWith('0') ? '1' : '0'}`, alices.replace(/-/g, ''), `{${alices}}`];
    for (const sid of variants) expect((await offer('bob', sid)).status, sid).toBe(404);
    for (const sid of variants) expect((await offer('alice', sid)).status, sid).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it('the resumed session’s resource (ICE restart, trickle) and warmup are the owner’s only', async () => {
    const patch = (user: string, sid: string) => call(user, `/v1/robots/${ROBOT}/realtime/sessions/${encodeURIComponent(sid)}`, { method: 'PATCH', body: FRAG, type: 'application/trickle-ice-sdpfrag' });
    const warmup = (user: string) => call(user, `/v1/robots/${ROBOT}/realtime/warmup`, { json: { session_id: alices } });
    expect((await patch('bob', alices)).status).toBe(404);
    expect((await warmup('bob')).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
    expect((await patch('alice', alices)).status).toBe(204);
    expect((await warmup('alice')).status).toBe(200);
    expect(upstream.seen).toHaveLength(2);
  });

  it('a relay with another secret does not accept the grant (another deployment)', async () => {
    const other = recordingRelay({ upstream: upstream.url, apiKey: KEY, secret: 'another-deployment', robots: '*', authorize }).relay;
    expect((await offer('alice', alices, {}, 'user', other)).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it('a caller the app does not authorize gets 401 and nothing is forwarded', async () => {
    const res = await relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp: 'v=0', session_id: alices }) }));
    expect(res.status).toBe(401);
    expect(upstream.seen).toHaveLength(0);
  });

  it('an admin (the QA page) may resume any session of the robot', async () => {
    const res = await offer('qa', alices, {}, 'admin');
    expect(res.status).toBe(201);
    expect(upstream.seen).toHaveLength(1);
  });
});
