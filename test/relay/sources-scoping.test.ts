import { beforeAll, describe, expect, it } from 'vitest';
import { createRelay, SessionGrants } from '../../src/relay/index.js';
import { fakeUpstreamFor, KEY, ROBOT, sendJson, type FakeHandler } from './helpers.js';

// Issue 47 (relay): a user reaches E17, E18, E6 and E9 only for messages of their own granted
// sessions, and E9 only for a file such a message cites. A fake service holds two users' messages.

const SECRET = 'sources-scoping-deployment-secret';
const FILE_A = 'file-cited-by-alice';
const FILE_B = 'file-cited-by-bob';
const MSG_A = '11111111-1111-4111-8111-111111111111';
const MSG_B = '22222222-2222-4222-8222-222222222222';
const messages = new Map<string, Record<string, unknown>>();
let aliceSession: string;
let bobSession: string;

const service: FakeHandler = (req, res) => {
  const url = new URL(req.url, 'http://upstream.test');
  const one = /^\/v1\/[^/]+\/session\.messages\/([^/]+)$/.exec(url.pathname);
  if (one) return messages.has(one[1]!) ? sendJson(res, 200, messages.get(one[1]!)) : sendJson(res, 404, { detail: 'Message not found' });
  if (url.pathname.startsWith('/v1/question/references/')) {
    const m = messages.get(url.searchParams.get('message_id')!);
    return m ? sendJson(res, 200, { message_id: m.id, references: m.reference_list }) : sendJson(res, 404, { detail: 'Message not found' });
  }
  if (url.pathname.endsWith('/message_rating')) return sendJson(res, 200, { ...messages.get(url.searchParams.get('message_id')!), rating: Number(url.searchParams.get('rating')) });
  if (url.pathname === '/pdf/highlight') return sendJson(res, 200, { success: true, positions: [{ page: 1, x: 1, y: 2, width: 3, height: 4 }] });
  return sendJson(res, 404, { detail: 'Not Found' });
};
const upstream = fakeUpstreamFor(service);

beforeAll(async () => {
  const grants = new SessionGrants(SECRET);
  aliceSession = await grants.mint('alice', ROBOT);
  bobSession = await grants.mint('bob', ROBOT);
  const ref = (file: string) => ({ id: `r-${file}`, title: 'Manual', url: null, dataset_id: 'd1', file_id: file, content: 'The warranty is two years.', score: 0.9, page: 1 });
  messages.set(MSG_A, { id: MSG_A, session_id: aliceSession, question: 'warranty?', answer: 'Two years.', reference_list: [ref(FILE_A)] });
  messages.set(MSG_B, { id: MSG_B, session_id: bobSession, question: 'charge?', answer: 'Use the base.', reference_list: [ref(FILE_B)] });
});

const relay = () => createRelay({ upstream: upstream.url, apiKey: KEY, secret: SECRET, robots: [ROBOT], logger: () => {}, authorize: (req) => {
  const who = req.headers.get('x-user');
  return who === 'qa' ? { userIdentifier: 'qa', role: 'admin' } : who ? { userIdentifier: who, role: 'user' } : null;
} });
const base = `http://relay.test/api/voice/v1`;
const call = (user: string, path: string, init: RequestInit = {}) =>
  relay().fetch(new Request(`${base}${path}`, { ...init, headers: { 'x-user': user, ...(init.body ? { 'content-type': 'application/json' } : {}) } }));
const upstreamPaths = () => upstream.seen.map((r) => `${r.method} ${new URL(r.url, 'http://u').pathname}`);

const read = (user: string, message: string) => call(user, `/${ROBOT}/session.messages/${message}`);
const references = (user: string, message: string) => call(user, `/question/references/${ROBOT}?message_id=${message}`);
const rate = (user: string, session: string, message: string, body: unknown = { feedback_content: 'wrong' }) =>
  call(user, `/${ROBOT}/message_rating?session_id=${session}&message_id=${message}&rating=-1&source=widget`, { method: 'PATCH', body: JSON.stringify(body) });
const highlight = (user: string, query: string, file: string) =>
  call(user, `/robots/${ROBOT}/pdf/highlight${query}`, { method: 'POST', body: JSON.stringify({ file_id: file, text: 'The warranty is two years.', page: 1 }) });

describe('E17: a message of a granted session only', () => {
  it('alice reads her message, not bob’s', async () => {
    expect((await read('alice', MSG_A)).status).toBe(200);
    const theirs = await read('alice', MSG_B);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).not.toContain(bobSession);
  });
});

describe('E18: the references of a message of a granted session only', () => {
  it('alice gets the references of her message from the service', async () => {
    const res = await references('alice', MSG_A);
    expect(res.status).toBe(200);
    expect((await res.json()).references[0].file_id).toBe(FILE_A);
    expect(upstreamPaths()).toEqual([`GET /v1/${ROBOT}/session.messages/${MSG_A}`, `GET /v1/question/references/${ROBOT}`]);
  });

  it('bob’s message is a 404 and its references are never asked for', async () => {
    const res = await references('alice', MSG_B);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Message not found' });
    expect(upstreamPaths()).toEqual([`GET /v1/${ROBOT}/session.messages/${MSG_B}`]);
  });

  it('an id that is not a message id reaches no upstream', async () => {
    for (const id of ['..', 'session.messages', 'x%2F..']) expect((await references('alice', id)).status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it('admin reads any message’s references', async () => {
    expect((await references('qa', MSG_B)).status).toBe(200);
    expect(upstreamPaths()).toEqual([`GET /v1/question/references/${ROBOT}`]);
  });
});

describe('E6: rating a message of a granted session only, body allowlisted', () => {
  it('alice rates her message; only feedback_content goes up', async () => {
    const res = await rate('alice', aliceSession, MSG_A, { feedback_content: 'wrong', feedback_metadata: { injected: true } });
    expect(res.status).toBe(200);
    const sent = upstream.seen.at(-1)!;
    expect(sent.method).toBe('PATCH');
    expect(JSON.parse(sent.body)).toEqual({ feedback_content: 'wrong' });
  });

  it('alice cannot rate bob’s message, under his session id or hers', async () => {
    expect((await rate('alice', bobSession, MSG_B)).status).toBe(404);
    expect((await rate('alice', aliceSession, MSG_B)).status).toBe(404);
    expect(upstream.seen.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });
});

describe('E9: highlight only in a file a message of a granted session cites', () => {
  it('alice highlights in the file her message cites: the service gets the body alone', async () => {
    const res = await highlight('alice', `?message_id=${MSG_A}`, FILE_A);
    expect(res.status).toBe(200);
    expect((await res.json()).success).toBe(true);
    const sent = upstream.seen.at(-1)!;
    expect(sent.url).toBe('/pdf/highlight');
    expect(JSON.parse(sent.body)).toEqual({ file_id: FILE_A, text: 'The warranty is two years.', page: 1 });
  });

  it('a file none of her answers cited, bob’s file, or bob’s message is a 404 that reaches no E9', async () => {
    expect((await highlight('alice', `?message_id=${MSG_A}`, FILE_B)).status).toBe(404);
    expect((await highlight('alice', `?message_id=${MSG_A}`, 'some-other-file')).status).toBe(404);
    expect((await highlight('alice', `?message_id=${MSG_B}`, FILE_B)).status).toBe(404);
    expect(upstreamPaths().filter((p) => p.includes('/pdf/'))).toEqual([]);
  });

  it('a user must name the message (422); the robot must be one the user may reach (403)', async () => {
    const res = await highlight('alice', '', FILE_A);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ loc: ['query', 'message_id'], msg: 'Field required', type: 'missing' }] });
    const other = await relay().fetch(new Request(`${base}/robots/another-robot/pdf/highlight?message_id=${MSG_A}`, { method: 'POST', headers: { 'x-user': 'alice', 'content-type': 'application/json' }, body: JSON.stringify({ file_id: FILE_A, text: 't', page: 1 }) }));
    expect(other.status).toBe(403);
    expect(upstream.seen).toHaveLength(0);
  });

  it('admin highlights any file, with or without a message; the relay’s query never goes up', async () => {
    expect((await highlight('qa', '', FILE_B)).status).toBe(200);
    expect((await highlight('qa', `?message_id=${MSG_A}`, FILE_B)).status).toBe(200);
    expect(upstream.seen.map((r) => r.url)).toEqual(['/pdf/highlight', '/pdf/highlight']);
  });
});
