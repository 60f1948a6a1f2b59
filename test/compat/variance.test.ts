/**
 * The real service's leeway (#46): the variance cases that failed against the client before, each
 * now a documented tolerance (docs/client.md, "Talking to a real deployment") or a precise error.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { AI, DS, FILE, integration, MSG, responses } from '../helpers/samples.js';
import { json, raw, useUpstream, type Answer, type Upstream } from './upstream.js';

let up: Upstream;
let api: ApiClient;
useUpstream({}, (u, a) => {
  up = u;
  api = a;
});

describe('E4–E8 answered 204 No Content', () => {
  it.each<[string, (a: ApiClient) => Promise<unknown>]>([
    ['E4', (a) => a.datasets.refreshFiles(DS, { file_id_list: [FILE] })],
    ['E5', (a) => a.datasets.addLinks(DS, { links: ['https://example.com'] })],
    ['E6', (a) => a.sessions.rate(AI, { session_id: 's1', message_id: MSG, rating: 1 })],
    ['E7', (a) => a.datasets.deleteFiles(DS, { file_ids: [FILE] })],
    ['E8', (a) => a.datasets.updateConfigs(DS, { metadata: {} })],
  ])('%s: the change was made, an empty acknowledgement', async (_id, call) => {
    up.next(raw('', 204));
    await expect(call(api)).resolves.toEqual({});
  });
});

describe('a proxy\'s HTML page', () => {
  const page = `<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head><body>${'<p>nginx</p>'.repeat(2000)}</body></html>`;
  it('a 503 HTML page is http_error 503 that says it is a page from something in between, its body bounded', async () => {
    up.next(raw(page, 503, { 'content-type': 'text/html; charset=utf-8' }));
    const error = await api.realtime.usage(AI).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'http_error', status: 503, message: expect.stringMatching(/503.*HTML page.*503 Service Temporarily Unavailable/) });
    expect(String((error as { body: unknown }).body).length).toBeLessThanOrEqual(1024);
  });
  it('a 200 HTML page (a captive portal, a login page) is invalid_response that says so', async () => {
    up.next(raw('<html><title>Sign in</title></html>', 200, { 'content-type': 'text/html' }));
    await expect(api.realtime.usage(AI)).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/HTML page.*Sign in/) });
  });
});

describe('omitted top-level fields', () => {
  it('E11 without model, totals, start_time, end_time, total_turns, total_duration_ms and cache_hit_rate is read', async () => {
    const { model: _m, totals: _t, start_time: _s, end_time: _e, total_turns: _tt, total_duration_ms: _d, cache_hit_rate: _c, ...rest } = responses.E11;
    up.next(json(rest));
    const out = await api.realtime.cost(AI);
    expect(out).toMatchObject({ bot_id: AI, total_cost: 0.0004, session_count: 1 });
    expect(out.total_turns).toBeUndefined();
  });
  it('a page without total and pages is read (the walk ends at a short page)', async () => {
    up.next(json({ items: [integration], page: 1, size: 50 }));
    const page = await api.datasets.integrations(DS);
    expect(page.items).toHaveLength(1);
    expect(page.total).toBeUndefined();
  });
  it('a missing field the client needs is invalid_response naming it as missing', async () => {
    const { sessions: _s, ...rest } = responses.E13;
    up.next(json(rest));
    await expect(api.realtime.usage(AI)).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('missing sessions') });
  });
});

describe('nulls on E20 rules', () => {
  it('null in every rule, user and detail field but the ids is read', async () => {
    const nulls = (o: Record<string, unknown>, keep: string[]) => Object.fromEntries(Object.keys(o).map((k) => [k, keep.includes(k) ? o[k] : null]));
    const rule = {
      ...nulls(integration, ['id', 'created_by', 'detail']),
      created_by: { ...nulls(integration.created_by, ['id']), corporate: null, is_independent: null },
      detail: { ...nulls(integration.detail, ['id', 'share_urls']), share_urls: [{ ...nulls(integration.detail.share_urls[0]!, ['id', 'url']) }] },
    };
    up.next(json({ ...responses.E20, items: [rule] }));
    const [got] = (await api.datasets.integrations(DS)).items;
    expect(got!.created_by).toMatchObject({ corporate: false, is_independent: false });
    expect(got!.name).toBeNull();
  });
  it('a rule without its id still fails', async () => {
    const { id: _, ...rest } = integration;
    up.next(json({ ...responses.E20, items: [rest] }));
    await expect(api.datasets.integrations(DS)).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('items.0') });
  });
});

describe('a body cut mid-way', () => {
  const chunkedCut: Answer = (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"bot_id":"x","session_count":1,"sess');
  };
  it('JSON that ends early (no length to tell) is invalid_response saying the JSON is cut off', async () => {
    up.next(chunkedCut);
    await expect(api.realtime.usage(AI)).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/not complete JSON/) });
  });
});

describe('E14 segments with fewer fields', () => {
  it('a segment with only its url (and epoch-seconds expires_at) is read', async () => {
    up.next(json({ session_id: 'sess-1', segments: [{ url: 'https://x/a.wav', expires_at: 1_764_201_600 }, { url: 'https://x/b.wav' }] }));
    const out = await api.realtime.audio(AI, { session_id: 'sess-1' });
    expect(out.segments).toEqual([
      { segment_index: 0, url: 'https://x/a.wav', expires_at: '2025-11-27T00:00:00.000Z' },
      { segment_index: 1, url: 'https://x/b.wav' },
    ]);
  });
  it('a segment without url still fails', async () => {
    up.next(json({ session_id: 'sess-1', segments: [{ segment_index: 0 }] }));
    await expect(api.realtime.audio(AI, { session_id: 'sess-1' })).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringContaining('url') });
  });
});

describe('the SDP answer', () => {
  const offer = { type: 'offer' as const, sdp: 'v=0\r\n' };
  it('an answer without type is read as the answer', async () => {
    up.next(json({ session_id: 'sess-1', sdp: 'v=0\r\n' }, 201));
    await expect(api.realtime.connect(AI, offer)).resolves.toMatchObject({ session_id: 'sess-1', type: 'answer', sdp: 'v=0\r\n' });
  });
  it('type offer still fails', async () => {
    up.next(json({ session_id: 'sess-1', type: 'offer', sdp: 'v=0\r\n' }, 201));
    await expect(api.realtime.connect(AI, offer)).rejects.toMatchObject({ code: 'invalid_response' });
  });
});
