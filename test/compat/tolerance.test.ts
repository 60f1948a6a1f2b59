/**
 * Responses parsed by what the spec fixes, tolerant where it does not (#37 6), one difference from
 * the emulator at a time; each tolerance keeps wrong data failing.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { AI, DS, FILE, message, MSG, responses } from '../helpers/samples.js';
import { json, useUpstream, type Upstream } from './upstream.js';

let up: Upstream;
let api: ApiClient;
useUpstream({ apiKey: 'sk-test' }, (u, a) => {
  up = u;
  api = a;
});

const record = responses.E12.sessions[0];

describe('numbers', () => {
  it('money and counts sent as decimal strings are read as numbers (E11)', async () => {
    up.next(json({ ...responses.E11, total_cost: '0.0012', session_count: '3', items: [{ category: 'audio_in', tokens: '10', unit_price: '40', cost: '0.0004' }] }));
    const out = await api.realtime.cost(AI);
    expect(out.total_cost).toBe(0.0012);
    expect(out.session_count).toBe(3);
    expect(out.items[0]).toMatchObject({ tokens: 10, unit_price: 40, cost: 0.0004 });
  });

  it('null in the numbers that default to 0 is 0 (E12, E13 records)', async () => {
    up.next(json({ ...responses.E12, sessions: [{ ...record, total_cost: null, duration_ms: null, cached_tokens: '7' }] }));
    const [cost] = (await api.realtime.sessionCosts(AI)).sessions;
    expect(cost).toMatchObject({ total_cost: 0, duration_ms: 0, cached_tokens: 7, turn_count: 2 });
    up.next(json({ ...responses.E13, sessions: [{ ...responses.E13.sessions[0], input_tokens: null }] }));
    expect((await api.realtime.usage(AI)).sessions[0]!.input_tokens).toBe(0);
  });

  it('a string that is not a number still fails, as does null where the spec gives no default', async () => {
    up.next(json({ ...responses.E11, total_cost: 'twelve' }));
    await expect(api.realtime.cost(AI)).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('total_cost') });
    up.next(json({ ...responses.E11, session_count: null }));
    await expect(api.realtime.cost(AI)).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('integers sent as strings are read; a fraction where the spec says integer fails (E19)', async () => {
    up.next(json({ ...responses.E19, total: '1', page: '1', items: [{ ...message, total_tokens: '42' }] }));
    const page = await api.sessions.messages(AI, { session_id: 's1' });
    expect(page.items[0]!.total_tokens).toBe(42);
    expect(page.total).toBe(1);
    up.next(json({ ...responses.E19, items: [{ ...message, total_tokens: '4.2' }] }));
    await expect(api.sessions.messages(AI, { session_id: 's1' })).rejects.toMatchObject({ code: 'invalid_response' });
  });
});

describe('pages', () => {
  it('pages: null (fastapi-pagination without a count) is accepted, and the walk ends at a short page', async () => {
    const m = (i: number) => ({ ...message, id: `${MSG.slice(0, -1)}${i}` });
    up.next(
      json({ items: [m(1), m(2)], total: null, page: 1, size: 2, pages: null }),
      json({ items: [m(3)], total: null, page: 2, size: 2, pages: null }),
    );
    const ids: string[] = [];
    for await (const msg of api.sessions.allMessages(AI, { session_id: 's1', size: 2 })) ids.push(msg.id);
    expect(ids).toHaveLength(3);
    expect(up.seen).toHaveLength(2);
  });
});

describe('dates', () => {
  it.each([
    ['a space for the T', '2026-11-01 10:00:00', '2026-11-01T10:00:00'],
    ['an offset without colon', '2026-11-01T10:00:00+0000', '2026-11-01T10:00:00+00:00'],
    ['a space and +0900', '2026-11-01 19:00:00.123+0900', '2026-11-01T19:00:00.123+09:00'],
    ['an hour-only offset', '2026-11-01T10:00:00+00', '2026-11-01T10:00:00+00:00'],
    ['nanoseconds', '2026-11-01T10:00:00.123456789Z', '2026-11-01T10:00:00.123456789Z'],
    ['a space, nanoseconds and +0000', '2026-11-01 10:00:00.123456789+0000', '2026-11-01T10:00:00.123456789+00:00'],
    ['a space and Z', '2026-11-01 10:00:00Z', '2026-11-01T10:00:00Z'],
  ])('%s is read and made ISO 8601', async (_name, sent, read) => {
    up.next(json({ ...responses.E13, start_time: sent, sessions: [{ ...responses.E13.sessions[0], created_at: sent }] }));
    const out = await api.realtime.usage(AI);
    expect(out.start_time).toBe(read);
    expect(out.sessions[0]!.created_at).toBe(read);
    expect(Number.isNaN(Date.parse(read))).toBe(false);
  });

  it('a date that is no date still fails', async () => {
    up.next(json({ ...responses.E13, start_time: 'last Tuesday' }));
    await expect(api.realtime.usage(AI)).rejects.toMatchObject({ code: 'invalid_response' });
  });
});

describe('audio segments (E14, fields not shown by the spec)', () => {
  const segment = responses.E14.segments[0];

  it('a segment without duration_ms is kept, its duration unknown (not 0)', async () => {
    const { duration_ms: _, ...rest } = segment;
    up.next(json({ ...responses.E14, segments: [rest] }));
    const [got] = (await api.realtime.audio(AI, { session_id: 'sess-1' })).segments;
    expect(got!.duration_ms).toBeUndefined();
    expect(got!.url).toBe(segment.url);
  });

  it('expires_at in epoch seconds (or ms) is made ISO 8601', async () => {
    up.next(json({ ...responses.E14, segments: [{ ...segment, expires_at: 1_764_201_600 }, { ...segment, segment_index: 1, expires_at: 1_764_201_600_000 }] }));
    const out = await api.realtime.audio(AI, { session_id: 'sess-1' });
    expect(out.segments.map((s) => s.expires_at)).toEqual(['2025-11-27T00:00:00.000Z', '2025-11-27T00:00:00.000Z']);
  });
});

describe('E4–E8 acknowledgements (success body not shown by the spec)', () => {
  const calls: [string, (a: ApiClient) => Promise<unknown>][] = [
    ['E4', (a) => a.datasets.refreshFiles(DS, { file_id_list: [FILE] })],
    ['E5', (a) => a.datasets.addLinks(DS, { links: ['https://example.com'] })],
    ['E6', (a) => a.sessions.rate(AI, { session_id: 's1', message_id: MSG, rating: 1 })],
    ['E7', (a) => a.datasets.deleteFiles(DS, { file_ids: [FILE] })],
    ['E8', (a) => a.datasets.updateConfigs(DS, { metadata: { a: 1 } })],
  ];

  it.each(calls)('%s: { "success": true } is accepted (the change was made)', async (_id, call) => {
    up.next(json({ success: true }));
    await expect(call(api)).resolves.toEqual({ success: true });
  });

  it.each(calls)('%s: { "success": false } alone is invalid_response (nothing says it was made)', async (_id, call) => {
    up.next(json({ success: false }));
    await expect(call(api)).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('the project\'s shape with a wrong member still fails (E4 files not a list)', async () => {
    up.next(json({ success: true, files: 'none' }));
    await expect(calls[0]![1](api)).rejects.toMatchObject({ code: 'invalid_response' });
  });
});
