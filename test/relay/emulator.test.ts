import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../../src/api/index.js';
import { startEmulator, FIXTURE_IDS, type Emulator } from 'kb-voice-emulator';
import { createNodeFetch, serveRelay, SessionGrants, type RelayCaller, type RelayServer } from '../../src/relay/index.js';
import { Caller } from '../realtime/helpers.js';
import { recordingRelay } from './helpers.js';

/**
 * The relay in front of the real emulator, over real HTTP (node:http) and real WebRTC: the API client
 * is the caller, as a browser app would use it. Every upstream request the relay makes is recorded,
 * so "refused without reaching the upstream" is checked, not assumed.
 */
const KEY = `sk-emu-${crypto.randomUUID()}`;
const SECRET = 'relay-grant-secret-emulator-test';

let emulator: Emulator;
let server: RelayServer;
let rec: ReturnType<typeof recordingRelay>;
const upstreamCalls: string[] = [];
const nodeFetch = createNodeFetch();
const rawTexts: string[] = [];
let robot: string;
const callers: Caller[] = [];

const authorize = (req: Request): RelayCaller | null => {
  const token = req.headers.get('x-app-session');
  if (token === 'admin-token') return { userIdentifier: 'qa', role: 'admin' };
  if (token?.startsWith('user:')) return { userIdentifier: token.slice(5), role: 'user' };
  return null;
};

const api = (token: string) => createApiClient({ baseUrl: `${server.url}/api/voice`, headers: { 'x-app-session': token }, retry: 0 });

/** Connects over WebRTC through the relay, asks one typed question and stops the answer early. */
async function converse(token: string, question: string, body: { user_identifier?: string; session_id?: string } = {}) {
  const caller = await Caller.connect(async (sdp) => api(token).realtime.connect(robot, { type: 'offer', sdp, ...body }));
  callers.push(caller);
  await caller.waitFor('session.ready');
  caller.send({ v: 1, type: 'input.text', text: question });
  await caller.waitFor('output.speech_started', () => true, 20_000);
  caller.send({ v: 1, type: 'response.interrupt' });
  const done = await caller.waitFor('turn.completed', () => true, 20_000);
  return { caller, sessionId: caller.sessionId, messageId: done.message_id };
}

let alice: Awaited<ReturnType<typeof converse>>;
let bob: Awaited<ReturnType<typeof converse>>;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: KEY, agentBuildMs: 50 });
  robot = emulator.fixtures.robotId;
  rec = recordingRelay({
    upstream: emulator.url,
    apiKey: KEY,
    secret: SECRET,
    robots: '*',
    authorize,
    timeoutMs: 10_000,
    maxBodyBytes: 32_768,
    // The relay's default upstream client in Node, wrapped to record every upstream request.
    fetch: (url, init) => {
      upstreamCalls.push(`${init.method} ${new URL(url).pathname}`);
      return nodeFetch(url, init);
    },
  });
  server = await serveRelay(rec.relay, { port: 0 });
  [alice, bob] = await Promise.all([
    converse('user:alice', 'How long is the warranty?', { user_identifier: 'mallory' }),
    converse('user:bob', 'How do I charge it?'),
  ]);
}, 60_000);

afterAll(async () => {
  for (const c of callers) c.close();
  await server?.close();
  await emulator?.close();
});

describe('role user through the relay against the emulator', () => {
  it('signaling minted granted session ids and the upstream stored the caller identifier', async () => {
    const grants = new SessionGrants(SECRET);
    expect(await grants.verify(alice.sessionId, 'alice', robot)).toBe(true);
    expect(await grants.verify(bob.sessionId, 'bob', robot)).toBe(true);
    const all = await api('admin-token').realtime.sessionCosts(robot);
    const byId = new Map(all.sessions.map((s) => [s.session_id, s]));
    expect(byId.get(alice.sessionId)?.user_identifier).toBe('alice');
    expect(byId.get(bob.sessionId)?.user_identifier).toBe('bob');
  });

  it('reads own messages, usage, cost and audio', async () => {
    const a = api('user:alice');
    const page = await a.sessions.messages(robot, { session_id: alice.sessionId });
    expect(page.items.map((m) => m.id)).toContain(alice.messageId);
    expect((await a.sessions.message(robot, alice.messageId)).session_id).toBe(alice.sessionId);
    const audio = await a.realtime.audio(robot, { session_id: alice.sessionId });
    expect(audio.session_id).toBe(alice.sessionId);
    const usage = await a.realtime.usage(robot);
    expect(usage.sessions.map((s) => s.session_id)).toEqual([alice.sessionId]);
    expect(usage.session_count).toBe(1);
    expect(usage.totals?.turn_count).toBe(1);
  });

  it('sees reports scoped to own sessions, recomputed consistently; admin sees the robot', async () => {
    const [mine, minePerSession, adminList, adminSummary] = await Promise.all([
      api('user:alice').realtime.cost(robot),
      api('user:alice').realtime.sessionCosts(robot),
      api('admin-token').realtime.sessionCosts(robot),
      api('admin-token').realtime.cost(robot),
    ]);
    const own = adminList.sessions.find((s) => s.session_id === alice.sessionId)!;
    expect(minePerSession.sessions).toEqual([own]);
    expect(minePerSession.total_cost).toBe(own.total_cost);
    expect(mine.session_count).toBe(1);
    expect(mine.total_turns).toBe(own.turn_count);
    expect(mine.total_cost).toBe(own.total_cost);
    expect(mine.total_duration_ms).toBe(own.duration_ms);
    expect(mine.items.map((i) => i.category)).toEqual(adminSummary.items.map((i) => i.category));
    expect(mine.items.find((i) => i.category === 'text_output')!.tokens).toBe(own.output_text_tokens);
    expect(Object.keys(mine.totals ?? {}).sort()).toEqual(Object.keys(adminSummary.totals ?? {}).sort());
    // The seeded past sessions and bob's are the admin's to see.
    expect(adminList.session_count).toBeGreaterThanOrEqual(2 + Object.keys(FIXTURE_IDS.sessions).length);
    expect(adminSummary.session_count).toBe(adminList.session_count);
  });

  it("cannot read another user's message (E17) and gets no data from it", async () => {
    const err = await api('user:alice').sessions.message(robot, bob.messageId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect(JSON.stringify((err as ApiError).body)).not.toContain(bob.sessionId);
  });

  it('rates own messages; warmup forces the identifier', async () => {
    const rated = await api('user:alice').sessions.rate(robot, { session_id: alice.sessionId, message_id: alice.messageId, rating: 1 }, { feedback_content: 'good' });
    expect(rated.rating).toBe(1);
    expect((await api('user:alice').realtime.warmup(robot, { user_identifier: 'mallory', session_id: alice.sessionId })).success).toBe(true);
  });

  it('reads the references of its own answer (E18) and highlights a file it cites (E9) on the emulator; not bob’s, nor an uncited file (#47)', async () => {
    const a = api('user:alice');
    const message = await a.sessions.message(robot, alice.messageId);
    const refs = await a.sessions.references(robot, { message_id: alice.messageId });
    expect(refs.references).toEqual(message.reference_list);
    const cited = refs.references.find((r) => typeof r.file_id === 'string');
    expect(cited, 'the warranty answer cites a file').toBeDefined();
    const highlight = (messageId: string, fileId: string) =>
      fetch(`${server.url}/api/voice/v1/robots/${robot}/pdf/highlight?message_id=${messageId}`, {
        method: 'POST',
        headers: { 'x-app-session': 'user:alice', 'content-type': 'application/json' },
        body: JSON.stringify({ file_id: fileId, text: cited!.content ?? 'warranty', page: typeof cited!.page === 'number' ? cited!.page : 1 }),
      });
    const before = upstreamCalls.length;
    const res = await highlight(alice.messageId, cited!.file_id!);
    expect(res.status).toBe(200);
    expect(typeof (await res.json()).success).toBe('boolean');
    expect(upstreamCalls.slice(before)).toEqual([`GET /v1/${robot}/session.messages/${alice.messageId}`, 'POST /pdf/highlight']);

    const refused = upstreamCalls.length;
    const uncited = Object.values(FIXTURE_IDS.files).find((f) => !refs.references.some((r) => r.file_id === f))!;
    expect((await highlight(alice.messageId, uncited)).status).toBe(404);
    expect((await highlight(bob.messageId, uncited)).status).toBe(404);
    const theirs = await a.sessions.references(robot, { message_id: bob.messageId }).catch((e: unknown) => e);
    expect((theirs as ApiError).status).toBe(404);
    expect(upstreamCalls.slice(refused).every((c) => c.startsWith('GET ') && c.includes('/session.messages/'))).toBe(true);
  });

  it('reconnects to its own session with the granted id', async () => {
    const again = await Caller.connect(async (sdp) => api('user:alice').realtime.connect(robot, { type: 'offer', sdp, session_id: alice.sessionId }));
    callers.push(again);
    expect(again.sessionId).toBe(alice.sessionId);
    again.close();
  });
});

/** A request sent byte for byte (no URL normalisation) to the relay server. */
function raw(method: string, path: string, headers: Record<string, string | number> = {}, body?: string | Buffer | (() => AsyncIterable<Buffer>)) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const url = new URL(server.url);
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        rawTexts.push(`${res.statusCode} ${JSON.stringify(res.headers)} ${text}`);
        resolve({ status: res.statusCode ?? 0, text });
      });
    });
    req.on('error', reject);
    if (typeof body === 'function') {
      (async () => {
        for await (const chunk of body()) if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        req.end();
      })().catch(() => {});
    } else req.end(body);
  });
}

describe('hostile requests fail without reaching the upstream or leaking data', () => {
  const A = () => ({ 'x-app-session': 'user:alice' });
  const JSON_H = () => ({ ...A(), 'content-type': 'application/json' });
  type Case = [name: string, method: string, path: () => string, headers: () => Record<string, string | number>, body: (() => string | Buffer | (() => AsyncIterable<Buffer>)) | undefined, status: number];
  const P = '/api/voice';
  const cases: Case[] = [
    ['traversal out of the robot', 'POST', () => `${P}/v1/robots/${robot}/../../ais/gen_prompt`, JSON_H, () => '{}', 404],
    ['traversal out of the prefix', 'POST', () => `${P}/../../_emulator/reset`, A, undefined, 404],
    ['encoded traversal', 'GET', () => `${P}/v1/robots/${robot}/%2e%2e/%2e%2e/datasets/${emulator.fixtures.datasetId}/integrations`, A, undefined, 404],
    ['upper-case encoded traversal', 'GET', () => `${P}/v1/robots/%2E%2E/%2E%2E/question/references/${robot}`, A, undefined, 404],
    ['half-encoded traversal', 'GET', () => `${P}/v1/robots/.%2e/realtime-usage`, A, undefined, 404],
    ['encoded slash', 'GET', () => `${P}/v1/robots/${robot}%2f..%2f..%2fais/realtime-usage`, A, undefined, 404],
    ['encoded backslash', 'GET', () => `${P}/v1/robots/..%5c..%5cais/realtime-usage`, A, undefined, 404],
    ['double-encoded traversal', 'GET', () => `${P}/v1/robots/%252e%252e/realtime-usage`, A, undefined, 404],
    ['double slashes', 'GET', () => `${P}//v1//robots/${robot}/realtime-usage`, A, undefined, 404],
    ['mixed case', 'GET', () => `${P}/V1/Robots/${robot}/Realtime-Usage`, A, undefined, 404],
    ['mixed-case prefix', 'GET', () => `/Api/Voice/v1/robots/${robot}/realtime-usage`, A, undefined, 404],
    ['endpoint off the allowlist (E3)', 'POST', () => `${P}/v1/ais/gen_prompt`, JSON_H, () => '{"prompt_in":"x"}', 404],
    ['endpoint off the allowlist (E20)', 'GET', () => `${P}/v1/datasets/${emulator.fixtures.datasetId}/integrations`, A, undefined, 404],
    ['endpoint off the allowlist (E10)', 'POST', () => `${P}/v1/digitals/v1/chat/completions`, JSON_H, () => '{}', 404],
    ['emulator control path', 'PUT', () => `${P}/_emulator/faults`, JSON_H, () => '{"warmup":"fail"}', 404],
    ['disallowed method PUT', 'PUT', () => `${P}/v1/robots/${robot}/realtime/warmup`, JSON_H, () => '{}', 404],
    ['disallowed method DELETE', 'DELETE', () => `${P}/v1/robots/${robot}/realtime-usage`, A, undefined, 404],
    ['disallowed method HEAD', 'HEAD', () => `${P}/v1/robots/${robot}/realtime-usage`, A, undefined, 404],
    ['disallowed method TRACE', 'TRACE', () => `${P}/v1/robots/${robot}/realtime-usage`, A, undefined, 404],
    ['lower-case method', 'patch', () => `${P}/v1/${robot}/message_rating?session_id=x&message_id=${crypto.randomUUID()}&rating=1`, A, undefined, 404],
    ['forged Authorization with the real key', 'GET', () => `${P}/v1/robots/${robot}/realtime-usage`, () => ({ authorization: `Bearer ${KEY}` }), undefined, 401],
    ['forged Authorization, no app session', 'POST', () => `${P}/v1/robots/${robot}/realtime/warmup`, () => ({ authorization: 'Bearer admin', cookie: 'role=admin' }), undefined, 401],
    ['oversized body (declared)', 'POST', () => `${P}/v1/robots/${robot}/realtime/sessions`, JSON_H, () => JSON.stringify({ type: 'offer', sdp: 'v=0\r\n'.repeat(20_000) }), 413],
    ['oversized body (chunked)', 'POST', () => `${P}/v1/robots/${robot}/realtime/sessions`, JSON_H, () => async function* () { for (let i = 0; i < 64; i++) yield Buffer.alloc(16_384, 0x20); }, 413],
    ["another user's session (E14)", 'GET', () => `${P}/v1/robots/${robot}/realtime-audio/download?session_id=${bob.sessionId}`, A, undefined, 404],
    ["another user's session (E19)", 'GET', () => `${P}/v1/${robot}/session.messages?session_id=${bob.sessionId}`, A, undefined, 404],
    ["another user's session (E6)", 'PATCH', () => `${P}/v1/${robot}/message_rating?session_id=${bob.sessionId}&message_id=${bob.messageId}&rating=-1`, A, undefined, 404],
    ["another user's session (E15)", 'DELETE', () => `${P}/v1/${robot}/sessions/${bob.sessionId}`, A, undefined, 404],
    ["another user's session (E1)", 'POST', () => `${P}/v1/robots/${robot}/realtime/warmup`, JSON_H, () => JSON.stringify({ session_id: bob.sessionId }), 404],
    ["another user's session (RS reconnect)", 'POST', () => `${P}/v1/robots/${robot}/realtime/sessions`, JSON_H, () => JSON.stringify({ type: 'offer', sdp: 'v=0', session_id: bob.sessionId }), 404],
    ['a seeded session of the robot (E19)', 'GET', () => `${P}/v1/${robot}/session.messages?session_id=${Object.values(FIXTURE_IDS.sessions)[0]}`, A, undefined, 404],
    ['a forged session id (E15)', 'DELETE', () => `${P}/v1/${robot}/sessions/${alice.sessionId.slice(0, -4)}0000`, A, undefined, 404],
    ['non-uuid ai_id on warmup', 'POST', () => `${P}/v1/robots/not-a-uuid/realtime/warmup`, A, undefined, 422],
    ['page size over the bound', 'GET', () => `${P}/v1/${robot}/session.messages?session_id=${alice.sessionId}&size=5000`, A, undefined, 422],
    ['unknown query parameter', 'GET', () => `${P}/v1/robots/${robot}/realtime-usage?user_identifier=bob`, A, undefined, 422],
    ['unknown body field', 'POST', () => `${P}/v1/robots/${robot}/realtime/warmup`, JSON_H, () => '{"role":"admin"}', 422],
    ['malformed JSON', 'POST', () => `${P}/v1/robots/${robot}/realtime/warmup`, JSON_H, () => '{"language":', 422],
    ['non-JSON body (CSRF-style form post)', 'POST', () => `${P}/v1/robots/${robot}/realtime/warmup`, () => ({ ...A(), 'content-type': 'text/plain' }), () => '{}', 415],
    ['foreign Origin', 'DELETE', () => `${P}/v1/${robot}/sessions/${alice.sessionId}`, () => ({ ...A(), origin: 'http://evil.test' }), undefined, 403],
    ['preflight from a foreign Origin', 'OPTIONS', () => `${P}/v1/${robot}/sessions/${alice.sessionId}`, () => ({ origin: 'http://evil.test', 'access-control-request-method': 'DELETE' }), undefined, 403],
  ];

  it.each(cases.map(([name, method, path, headers, body, status]) => ({ name, method, path, headers, body, status })))('$name → $status', async ({ method, path, headers, body, status }) => {
    const before = upstreamCalls.length;
    const res = await raw(method, path(), headers(), body?.());
    expect(res.status).toBe(status);
    expect(upstreamCalls.length).toBe(before);
    expect(res.text).not.toContain(KEY);
    expect(res.text).not.toContain(emulator.url);
    expect(res.text).not.toContain(new URL(emulator.url).host);
    if (method !== 'HEAD' && status !== 413) expect(JSON.parse(res.text)).toHaveProperty('detail');
  });

  it('did not delete or rate anything of bob', async () => {
    const page = await api('user:bob').sessions.messages(robot, { session_id: bob.sessionId });
    const msg = page.items.find((m) => m.id === bob.messageId)!;
    expect(msg.rating ?? 0).toBe(0);
  });

  it('deletes its own session', async () => {
    const out = await api('user:alice').sessions.delete(robot, alice.sessionId);
    expect(out?.session_id).toBe(alice.sessionId);
  });
});

it('leaks the key in no response or log line of this file', async () => {
  const lines = [...(await rec.transcript()), ...rawTexts];
  expect(lines.length).toBeGreaterThan(60);
  for (const line of lines) {
    expect(line).not.toContain(KEY);
    expect(line).not.toContain(SECRET);
  }
});
