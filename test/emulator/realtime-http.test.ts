import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { FIXTURE_IDS, PRICE_TABLE } from 'kb-voice-emulator';
import { useEmulator } from '../helpers/emulator.js';
import { nextCall } from '../helpers/next-call.js';

const t = useEmulator();
afterEach(() => {
  vi.useRealTimers();
});

const S1 = FIXTURE_IDS.sessions[0];

describe('E1 warmup', () => {
  it('builds the agent and answers success: true; later tasks pay nothing', async () => {
    expect(t.emu.context.agents.isBuilt(t.robotId)).toBe(false);
    await expect(t.api.realtime.warmup(t.robotId)).resolves.toEqual({ success: true });
    expect(t.emu.context.agents.isBuilt(t.robotId)).toBe(true);
    await expect(t.emu.context.agents.ensureBuilt(t.robotId)).resolves.toEqual({ paidMs: 0 });
  });

  it('takes the configured agent build time when cold', async () => {
    const started = Date.now();
    await t.api.realtime.warmup(t.robotId, { language: 'en' });
    // A lower bound only: the build waits agentBuildMs (300 here) before answering.
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('swallows an upstream failure into 200 success: false and leaves the agent cold', async () => {
    await t.setFaults({ warmup: 'fail' });
    const res = await t.raw('POST', `/v1/robots/${t.robotId}/realtime/warmup`, { body: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: false });
    expect(t.emu.context.agents.isBuilt(t.robotId)).toBe(false);
    // The first task then pays the full build, as if no warmup had happened.
    const { paidMs } = await t.emu.context.agents.ensureBuilt(t.robotId);
    expect(paidMs).toBeGreaterThanOrEqual(280);
  });

  it('hangs with the hang fault (the client times out) and the agent stays cold', async () => {
    await t.setFaults({ warmup: 'hang' });
    const controller = new AbortController();
    const reached = nextCall(t.emu.context.agents, 'warmup');
    const pending = t.api.realtime.warmup(t.robotId, {}, { signal: controller.signal });
    // The request is hanging in the emulator (not merely not sent yet) when the client gives up.
    await reached;
    controller.abort();
    await expect(pending).rejects.toBeTruthy();
    expect(t.emu.context.agents.isBuilt(t.robotId)).toBe(false);
  });

  it('answers 401 without the bearer, 404 for an unknown robot, 422 for bad input', async () => {
    expect((await t.raw('POST', `/v1/robots/${t.robotId}/realtime/warmup`, { key: null })).status).toBe(401);
    const wrong = await t.raw('POST', `/v1/robots/${t.robotId}/realtime/warmup`, { key: 'nope' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ detail: 'Invalid API key' });
    const unknown = await t.raw('POST', '/v1/robots/00000000-0000-4000-8000-000000000000/realtime/warmup', { body: {} });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Robot not found' });
    const bad = await t.raw('POST', '/v1/robots/not-a-uuid/realtime/warmup', { body: { language: 1, extra: true } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail).toEqual([
      { loc: ['path', 'ai_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
      { loc: ['body', 'language'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    const json = await t.raw('POST', `/v1/robots/${t.robotId}/realtime/warmup`, { body: '{"language":' });
    expect(json.status).toBe(422);
    expect((await json.json()).detail[0]).toMatchObject({ loc: ['body', 12], type: 'json_invalid' });
  });
});

describe('E11–E13 cost and usage', () => {
  it('E11 aggregates the seeded sessions with priced items per category', async () => {
    const cost = await t.api.realtime.cost(t.robotId);
    expect(cost.session_count).toBe(3);
    expect(cost.total_turns).toBe(6);
    expect(cost.items.map((i) => i.category)).toEqual(['text_input', 'audio_input', 'cached_input', 'text_output', 'audio_output']);
    for (const item of cost.items) {
      expect(item.unit_price).toBe(PRICE_TABLE[item.category as keyof typeof PRICE_TABLE]);
      expect(item.cost).toBeCloseTo((item.tokens * item.unit_price) / 1e6, 6);
      expect(item.tokens).toBeGreaterThan(0);
    }
    expect(cost.total_cost).toBeCloseTo(cost.items.reduce((n, i) => n + i.cost, 0), 6);
    const totals = cost.totals as Record<string, number>;
    expect(cost.cache_hit_rate).toBeCloseTo(totals.cached_tokens! / totals.input_tokens!, 3);
    const usage = t.emu.context.store.usage.all();
    expect(totals.output_audio_tokens).toBe(usage.reduce((n, u) => n + u.output_audio_tokens, 0));
    expect(cost.model).toBe('gpt-realtime');
  });

  it('filters by the time window and echoes it', async () => {
    const now = Date.now();
    const start_time = new Date(now - 48 * 3600_000).toISOString();
    const end_time = new Date(now).toISOString();
    const cost = await t.api.realtime.cost(t.robotId, { start_time, end_time });
    expect(cost.session_count).toBe(2); // the 72-hour-old session is outside
    expect(cost.start_time).toBe(start_time);
    const list = await t.api.realtime.sessionCosts(t.robotId, { start_time, end_time });
    expect(list.sessions.map((s) => s.session_id)).toEqual([FIXTURE_IDS.sessions[2], FIXTURE_IDS.sessions[1]]);
    expect(list.total_cost).toBeCloseTo(cost.total_cost, 6);
    const none = await t.api.realtime.usage(t.robotId, { end_time: new Date(now - 100 * 3600_000).toISOString() });
    expect(none.session_count).toBe(0);
    expect(none.totals).toMatchObject({ turn_count: 0, total_tokens: 0 });
    const other = await t.api.realtime.cost(t.robotId, { model: 'some-other-model' });
    expect(other.session_count).toBe(0);
  });

  it('E12 records carry bot, provider, user and language; E13 totals sum every field', async () => {
    const list = await t.api.realtime.sessionCosts(t.robotId);
    const s2 = list.sessions.find((s) => s.session_id === FIXTURE_IDS.sessions[1])!;
    expect(s2).toMatchObject({ bot_id: t.robotId, bot_name: 'Aozora Support', provider: 'openai', user_identifier: 'user-ben', language: 'en', turn_count: 3 });
    expect(s2.total_tokens).toBe(s2.input_text_tokens + s2.input_audio_tokens + s2.cached_tokens + s2.output_text_tokens + s2.output_audio_tokens);
    const usage = await t.api.realtime.usage(t.robotId);
    expect(usage.session_count).toBe(3);
    const totals = usage.totals as Record<string, number>;
    for (const key of ['turn_count', 'duration_ms', 'input_tokens', 'output_tokens', 'total_tokens', 'cached_tokens'] as const) {
      expect(totals[key]).toBe(usage.sessions.reduce((n, s) => n + s[key], 0));
    }
    expect(usage.sessions[0]!.title).toBeTruthy();
  });

  it('rejects bad windows and unknown parameters with 422; unknown robot 404; no key 401', async () => {
    const bad = await t.raw('GET', `/v1/robots/${t.robotId}/realtime-cost`, { query: 'start_time=yesterday&foo=1' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['query', 'start_time'], ['query', 'foo']]);
    const reversed = await t.raw('GET', `/v1/robots/${t.robotId}/realtime-usage`, { query: 'start_time=2026-01-02T00:00:00Z&end_time=2026-01-01T00:00:00Z' });
    expect(reversed.status).toBe(422);
    expect((await reversed.json()).detail[0].loc).toEqual(['query', 'end_time']);
    expect((await t.raw('GET', `/v1/robots/${t.robotId}/realtime-cost/sessions`, { query: 'end_time=13' })).status).toBe(422);
    expect((await t.raw('GET', '/v1/robots/nope/realtime-cost/sessions')).status).toBe(404);
    expect((await t.raw('GET', `/v1/robots/${t.robotId}/realtime-usage`, { key: null })).status).toBe(401);
  });

  it('leaves out sessions being deleted', async () => {
    await t.api.sessions.delete(t.robotId, S1);
    expect((await t.api.realtime.usage(t.robotId)).session_count).toBe(2);
    await t.emu.context.deletions.idle();
    expect((await t.api.realtime.cost(t.robotId)).session_count).toBe(2);
  });
});

describe('E14 presigned audio', () => {
  it('lists every segment with a presigned URL that serves audio/wav with a plain GET', async () => {
    const out = await t.api.realtime.audio(t.robotId, { session_id: S1 });
    expect(out.segments.map((s) => s.segment_index)).toEqual([0, 1, 2, 3]);
    const seg = out.segments[1]!;
    expect(seg.content_type).toBe('audio/wav');
    const expires = Date.parse(seg.expires_at!) - Date.now();
    expect(expires).toBeGreaterThan(14 * 60_000);
    expect(expires).toBeLessThanOrEqual(15 * 60_000);
    const res = await fetch(seg.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('RIFF');
    // 16 kHz PCM16 mono: 32 bytes per ms.
    expect((bytes.length - 44) / 32).toBeCloseTo(seg.duration_ms!, -1);
  });

  it('gives one segment with segment_index; 404 when out of range or unknown session', async () => {
    const one = await t.api.realtime.audio(t.robotId, { session_id: S1, segment_index: 2 });
    expect(one.segments).toHaveLength(1);
    expect(one.segments[0]!.segment_index).toBe(2);
    const res = await t.raw('GET', `/v1/robots/${t.robotId}/realtime-audio/download`, { query: `session_id=${S1}&segment_index=4` });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Audio segment 4 not found' });
    await expect(t.api.realtime.audio(t.robotId, { session_id: 'no-such-session' })).rejects.toMatchObject({ status: 404 });
    const bad = await t.raw('GET', `/v1/robots/${t.robotId}/realtime-audio/download`, { query: 'segment_index=-1' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['query', 'session_id'], ['query', 'segment_index']]);
    expect((await t.raw('GET', `/v1/robots/${t.robotId}/realtime-audio/download`, { query: `session_id=${S1}`, key: null })).status).toBe(401);
  });

  it('answers 403 when any character of the query changes', async () => {
    const { segments } = await t.api.realtime.audio(t.robotId, { session_id: S1, segment_index: 0 });
    const url = new URL(segments[0]!.url);
    const query = url.search.slice(1);
    const flip = (c: string) => (c === 'a' ? 'b' : c === '1' ? '2' : c === '&' ? '%' : c === '=' ? ':' : /[0-9]/.test(c) ? '1' : 'a');
    // Every position of the query, one character changed at a time.
    for (let i = 0; i < query.length; i++) {
      const changed = query.slice(0, i) + flip(query[i]!) + query.slice(i + 1);
      const res = await fetch(`${url.origin}${url.pathname}?${changed}`);
      expect(res.status, `changed position ${i}`).toBe(403);
    }
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(403);
    expect((await fetch(`${url.origin}${url.pathname}?${query}&x=1`)).status).toBe(403);
    expect((await fetch(`${url.origin}${url.pathname.replace('/0.wav', '/1.wav')}?${query}`)).status).toBe(403);
    expect((await fetch(url)).status).toBe(200);
  });

  it('stops working at expires_at', async () => {
    // Expiry is read from the clock: move it instead of waiting out a short lifetime.
    vi.useFakeTimers({ toFake: ['Date'] });
    const { segments } = await t.api.realtime.audio(t.robotId, { session_id: S1, segment_index: 0 });
    const expiresAt = Date.parse(segments[0]!.expires_at!);
    vi.setSystemTime(expiresAt - 1);
    expect((await fetch(segments[0]!.url)).status).toBe(200);
    vi.setSystemTime(expiresAt);
    const res = await fetch(segments[0]!.url);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: 'Request has expired' });
  });
});

describe('realtime signaling (HTTP side)', () => {
  it('validates the offer, needs the key and a known robot', async () => {
    const bad = await t.raw('POST', `/v1/robots/${t.robotId}/realtime/sessions`, { body: { type: 'answer', sdp: '' } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'type'], ['body', 'sdp']]);
    expect((await t.raw('POST', `/v1/robots/${t.robotId}/realtime/sessions`, { body: { type: 'offer', sdp: 'v=0' }, key: null })).status).toBe(401);
    expect((await t.raw('POST', '/v1/robots/unknown/realtime/sessions', { body: { type: 'offer', sdp: 'v=0' } })).status).toBe(404);
    await expect(t.api.realtime.connect('unknown', { type: 'offer', sdp: 'v=0' })).rejects.toBeInstanceOf(ApiError);
  });
});
