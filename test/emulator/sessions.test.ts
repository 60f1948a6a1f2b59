import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, FIXTURE_IDS } from 'kb-voice-emulator';
import { DeletionQueue } from '../../emulator/src/deletions.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator();

const [S1, S2] = FIXTURE_IDS.sessions;
const locs = async (res: Response) => ((await res.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);

describe('E19 session messages', () => {
  it('pages with the envelope, oldest first by default', async () => {
    const all = await t.api.sessions.messages(t.robotId, { session_id: S2 });
    expect(all).toMatchObject({ total: 3, page: 1, size: 50, pages: 1 });
    expect(all.items.map((m) => m.question)).toEqual([
      'How do I pair the kettle with the app?', 'What does the red blinking ring light mean?', 'How long is the warranty?',
    ]);
    expect(all.items[0]!.answer).toContain('hold the power button for five seconds');
    expect(all.items[0]).not.toHaveProperty('robot_id');
    const page2 = await t.api.sessions.messages(t.robotId, { session_id: S2, size: 2, page: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, size: 2, pages: 2 });
    expect(page2.items.map((m) => m.question)).toEqual(['How long is the warranty?']);
    const beyond = await t.api.sessions.messages(t.robotId, { session_id: S2, size: 2, page: 5 });
    expect(beyond.items).toEqual([]);
    const collected = [];
    for await (const m of t.api.sessions.allMessages(t.robotId, { session_id: S2, size: 1 })) collected.push(m.id);
    expect(collected).toEqual(all.items.map((m) => m.id));
  });

  it('orders by order_by and cuts at end_time', async () => {
    const desc = await t.api.sessions.messages(t.robotId, { session_id: S2, order_by: '-created_at' });
    expect(desc.items.map((m) => m.question)[0]).toBe('How long is the warranty?');
    const first = desc.items[2]!;
    const until = await t.api.sessions.messages(t.robotId, { session_id: S2, end_time: first.created_at! });
    expect(until.items.map((m) => m.id)).toEqual([first.id]);
  });

  it('checks bounds: page >= 1, size 1..1000, known order_by, required session_id (no key needed)', async () => {
    const path = `/v1/${t.robotId}/session.messages`;
    expect(await locs(await t.raw('GET', path, { key: null, query: `session_id=${S2}&page=0&size=1001` }))).toEqual([['query', 'page'], ['query', 'size']]);
    expect(await locs(await t.raw('GET', path, { key: null, query: 'size=abc' }))).toEqual([['query', 'session_id'], ['query', 'size']]);
    expect(await locs(await t.raw('GET', path, { key: null, query: `session_id=${S2}&order_by=colour` }))).toEqual([['query', 'order_by']]);
    expect((await t.raw('GET', path, { key: null, query: `session_id=${S2}&size=1000` })).status).toBe(200);
    expect((await t.raw('GET', path, { key: null, query: 'session_id=unknown' })).status).toBe(404);
  });
});

describe('E17, E18 and E6', () => {
  it('E17 reads one message; 404 for another robot or unknown id; 401 without key', async () => {
    const [m] = (await t.api.sessions.messages(t.robotId, { session_id: S1 })).items;
    await expect(t.api.sessions.message(t.robotId, m!.id)).resolves.toMatchObject({ id: m!.id, status: 'finished', session_id: S1 });
    expect((await t.raw('GET', `/v1/${t.robotId}/session.messages/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await t.raw('GET', `/v1/${t.robotId}/session.messages/${m!.id}`, { key: null })).status).toBe(401);
    expect((await t.raw('GET', `/v1/other-robot/session.messages/${m!.id}`)).status).toBe(404);
  });

  it('E18 returns the knowledge references of an answer', async () => {
    const [m] = (await t.api.sessions.messages(t.robotId, { session_id: S2 })).items;
    const refs = await t.api.sessions.references(t.robotId, { message_id: m!.id });
    expect(refs.message_id).toBe(m!.id);
    expect(refs.references[0]).toMatchObject({ file_id: FIXTURE_IDS.files.faqEn, title: 'aozora-ak3-faq-en.md' });
    expect(m!.answer).toContain(refs.references[0]!.content!);
    expect(await locs(await t.raw('GET', `/v1/question/references/${t.robotId}`))).toEqual([['query', 'message_id']]);
    expect((await t.raw('GET', `/v1/question/references/${t.robotId}`, { query: 'message_id=nope' })).status).toBe(404);
  });

  it('E6 rates a message with feedback, and clears the rating with 0', async () => {
    const [m] = (await t.api.sessions.messages(t.robotId, { session_id: S1 })).items;
    const rated = await t.api.sessions.rate(t.robotId, { session_id: S1, message_id: m!.id, rating: -1, source: 'widget' }, { feedback_content: 'Too short' });
    expect(rated).toMatchObject({ id: m!.id, rating: -1, feedback_content: 'Too short', feedback_source: 'widget' });
    expect((await t.api.sessions.message(t.robotId, m!.id)).rating).toBe(-1);
    const cleared = await t.api.sessions.rate(t.robotId, { session_id: S1, message_id: m!.id, rating: 0 });
    expect(cleared.rating).toBeNull();
    expect(cleared.feedback_content).toBe('Too short');
  });

  it('E6 rejects bad input and mismatched ids', async () => {
    const [m] = (await t.api.sessions.messages(t.robotId, { session_id: S1 })).items;
    const path = `/v1/${t.robotId}/message_rating`;
    expect(await locs(await t.raw('PATCH', path, { query: `session_id=${S1}&message_id=x&rating=2&source=email` }))).toEqual([
      ['query', 'message_id'], ['query', 'rating'], ['query', 'source'],
    ]);
    expect(await locs(await t.raw('PATCH', path, { query: `session_id=${S1}&message_id=${m!.id}&rating=1`, body: { feedback_content: 5 } }))).toEqual([['body', 'feedback_content']]);
    expect((await t.raw('PATCH', path, { query: `session_id=${S2}&message_id=${m!.id}&rating=1` })).status).toBe(404);
    expect((await t.raw('PATCH', path, { query: `session_id=${S1}&message_id=${m!.id}&rating=1`, key: null })).status).toBe(401);
  });
});

describe('E15 session deletion', () => {
  it('answers at once with a deletion status, then hard-deletes everything in the background', async () => {
    const { store } = t.emu.context;
    const files = store.audio.find((a) => a.session_id === S2).map((a) => a.file);
    expect(files.length).toBe(6);
    expect(files.every((f) => existsSync(f))).toBe(true);
    const out = await t.api.sessions.delete(t.robotId, S2);
    expect(out).toEqual({ session_id: S2, status: 'deleting' });
    // Invisible to every read at once, while the batches run.
    expect((await t.raw('GET', `/v1/${t.robotId}/session.messages`, { query: `session_id=${S2}` })).status).toBe(404);
    expect((await t.raw('GET', `/v1/robots/${t.robotId}/realtime-audio/download`, { query: `session_id=${S2}` })).status).toBe(404);
    await t.emu.context.deletions.idle();
    expect(store.sessions.get(S2)).toBeUndefined();
    expect(store.messages.find((m) => m.session_id === S2)).toEqual([]);
    expect(store.usage.find((u) => u.session_id === S2)).toEqual([]);
    expect(store.audio.find((a) => a.session_id === S2)).toEqual([]);
    expect(files.some((f) => existsSync(f))).toBe(false);
    // Other sessions are untouched.
    expect(store.messages.find((m) => m.session_id === S1)).toHaveLength(2);
    expect((await t.raw('DELETE', `/v1/${t.robotId}/sessions/${S2}`)).status).toBe(404);
  });

  it('deletes in batches of batchSize, yielding between them', async () => {
    const store = createMemoryStore();
    store.sessions.put({ id: 's', robot_id: 'r', user_identifier: null, language: 'en', title: '', created_at: new Date().toISOString(), duration_ms: 0 });
    const template = t.emu.context.store.messages.all()[0]!;
    for (let i = 0; i < 35; i++) store.messages.put({ ...template, session_id: 's', id: `m${i}` });
    const queue = new DeletionQueue(store, { batchSize: 10, pauseMs: 5 });
    queue.schedule('s');
    expect(store.sessions.get('s')?.deleting).toBe(true);
    // The first batch runs at once; the rest follow after pauses.
    expect(store.messages.size()).toBe(25);
    await new Promise((r) => setTimeout(r, 1));
    expect(store.messages.size()).toBeGreaterThan(0);
    await queue.idle();
    expect(store.messages.size()).toBe(0);
    expect(store.sessions.get('s')).toBeUndefined();
  });

  it('ignores a robot mismatch and an empty session id with 204, deleting nothing', async () => {
    const { store } = t.emu.context;
    const count = store.messages.size();
    const mismatch = await t.raw('DELETE', `/v1/00000000-0000-4000-8000-000000000000/sessions/${S1}`);
    expect(mismatch.status).toBe(204);
    expect(await mismatch.text()).toBe('');
    await expect(t.api.sessions.delete('another-robot', S1)).resolves.toBeNull();
    expect((await t.raw('DELETE', `/v1/${t.robotId}/sessions/`)).status).toBe(204);
    await t.emu.context.deletions.idle();
    expect(store.messages.size()).toBe(count);
    expect(store.sessions.get(S1)?.deleting).toBeFalsy();
  });

  it('needs the API key and answers 404 for an unknown session', async () => {
    expect((await t.raw('DELETE', `/v1/${t.robotId}/sessions/${S1}`, { key: null })).status).toBe(401);
    const res = await t.raw('DELETE', `/v1/${t.robotId}/sessions/no-such-session`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Session not found' });
  });
});
