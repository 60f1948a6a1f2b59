import { describe, expect, it } from 'vitest';
import { FIXTURE_IDS } from 'kb-voice-emulator';
import { HistoryIn, MAX_HISTORY_SESSIONS, MAX_HISTORY_TURNS, HISTORY_SPAN_MS } from '../../emulator/src/fixtures/history.js';
import * as z from 'zod/mini';
import { useEmulator } from '../helpers/emulator.js';

// POST /_emulator/history (CONTRACT.md) and the windowed E11–E13 over a long history.
// One emulator for the file, reset after every test.
const t = useEmulator();

const seed = (body: unknown) => t.raw('POST', '/_emulator/history', { key: null, body });
const locs = async (res: Response) => ((await res.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);

describe('POST /_emulator/history', () => {
  it('adds N ended sessions over the past 30 days, each with K messages and usage but no audio; answers the total', async () => {
    const before = Date.now();
    const res = await seed({ sessions: 500 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sessions: 503 });
    const usage = await t.api.realtime.usage(t.robotId);
    expect(usage.session_count).toBe(503);
    const added = usage.sessions.filter((s) => !(FIXTURE_IDS.sessions as readonly string[]).includes(s.session_id));
    expect(added).toHaveLength(500);
    for (const s of added) {
      const at = Date.parse(s.created_at!);
      expect(at).toBeGreaterThanOrEqual(before - HISTORY_SPAN_MS);
      expect(at).toBeLessThan(Date.now());
      expect(s).toMatchObject({ turn_count: 3 });
      expect(s.total_tokens).toBeGreaterThan(0);
      expect(s.duration_ms).toBeGreaterThan(0);
    }
    // Spread over the span, not bunched: every one of the 30 days holds some.
    const days = new Set(added.map((s) => Math.floor((Date.now() - Date.parse(s.created_at!)) / 86_400_000)));
    expect(days.size).toBe(30);
    const one = added[123]!;
    const messages = await t.api.sessions.messages(t.robotId, { session_id: one.session_id });
    expect(messages.total).toBe(3);
    expect(messages.items.every((m) => m.answer && m.status === 'finished')).toBe(true);
    expect((await t.api.realtime.audio(t.robotId, { session_id: one.session_id })).segments).toEqual([]);
    const cost = await t.api.realtime.cost(t.robotId);
    expect(cost.session_count).toBe(503);
    expect(cost.total_cost).toBeGreaterThan(0);
  });

  it('takes turnsPerSession, adds to earlier calls, and starts afresh after a reset', async () => {
    expect(await (await seed({ sessions: 20, turnsPerSession: 5 })).json()).toEqual({ sessions: 23 });
    expect(await (await seed({ sessions: 10 })).json()).toEqual({ sessions: 33 });
    const usage = await t.api.realtime.usage(t.robotId);
    expect(usage.sessions.map((s) => s.turn_count).sort()).toEqual([...Array(10).fill(3), ...Array(20).fill(5), 1, 2, 3].sort());
    expect(new Set(usage.sessions.map((s) => s.session_id)).size).toBe(33);
    await t.raw('POST', '/_emulator/reset', { key: null });
    expect((await t.api.realtime.usage(t.robotId)).session_count).toBe(3);
    expect(t.emu.context.history.turns).toBe(0);
  });

  it('is deterministic: the same call on a fresh emulator gives the same sessions', async () => {
    await seed({ sessions: 50 });
    const first = (await t.api.realtime.usage(t.robotId)).sessions.map((s) => [s.session_id, s.total_tokens, s.language]);
    await t.raw('POST', '/_emulator/reset', { key: null });
    await seed({ sessions: 50 });
    expect((await t.api.realtime.usage(t.robotId)).sessions.map((s) => [s.session_id, s.total_tokens, s.language])).toEqual(first);
  });

  it('bounds: 1 <= sessions <= 100,000, 1 <= turnsPerSession <= 20, integers, no other member: 422 in the spec shape', async () => {
    const over = await seed({ sessions: MAX_HISTORY_SESSIONS + 1 });
    expect(over.status).toBe(422);
    const body = (await over.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail).toEqual([expect.objectContaining({ loc: ['body', 'sessions'], msg: expect.any(String), type: expect.any(String) })]);
    expect(await locs(await seed({ sessions: 0, turnsPerSession: 21 }))).toEqual([['body', 'sessions'], ['body', 'turnsPerSession']]);
    expect(await locs(await seed({ sessions: 1.5, turnsPerSession: 0 }))).toEqual([['body', 'sessions'], ['body', 'turnsPerSession']]);
    expect(await locs(await seed({ turnsPerSession: 2 }))).toEqual([['body', 'sessions']]);
    expect((await seed({ sessions: 1, colour: 'red' })).status).toBe(422);
    expect((await seed('{ not json')).status).toBe(422);
    // Nothing was added by the refused calls.
    expect((await t.api.realtime.usage(t.robotId)).session_count).toBe(3);
    // The largest values are accepted by the same schema the route uses (seeding 100,000 sessions is a bench's job).
    expect(z.safeParse(HistoryIn, { sessions: MAX_HISTORY_SESSIONS, turnsPerSession: 20 }).success).toBe(true);
  });

  it('refuses with 422 a call that would take the history past MAX_HISTORY_TURNS, adding nothing', async () => {
    t.emu.context.history.turns = MAX_HISTORY_TURNS - 5;
    const res = await seed({ sessions: 2 }); // 6 turns
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
    expect(body.detail[0]).toMatchObject({ loc: ['body', 'sessions'], msg: expect.stringContaining('5 more can be added') });
    expect((await t.api.realtime.usage(t.robotId)).session_count).toBe(3);
    expect(await (await seed({ sessions: 1, turnsPerSession: 5 })).json()).toEqual({ sessions: 4 });
  });

  it('answers loopback callers only, with no key', async () => {
    // The control guard is shared with the other /_emulator routes; a keyless loopback call works (above).
    expect((await seed({ sessions: 1 })).status).toBe(200);
  });
});

describe('E11–E13 over a long history', () => {
  it('honour start_time/end_time: the windowed lists are exactly the sessions of the window, newest first', async () => {
    await seed({ sessions: 2000 });
    const all = (await t.api.realtime.usage(t.robotId)).sessions;
    const times = all.map((s) => Date.parse(s.created_at!));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const start_time = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const end_time = new Date(Date.now() - 5 * 86_400_000).toISOString();
    const expected = all.filter((s) => s.created_at! >= start_time && s.created_at! <= end_time).map((s) => s.session_id);
    expect(expected.length).toBeGreaterThan(200);
    const usage = await t.api.realtime.usage(t.robotId, { start_time, end_time });
    expect(usage.sessions.map((s) => s.session_id)).toEqual(expected);
    expect(usage).toMatchObject({ session_count: expected.length, start_time, end_time });
    expect(usage.totals!.turn_count).toBe(expected.length * 3);
    const costs = await t.api.realtime.sessionCosts(t.robotId, { start_time, end_time });
    expect(costs.sessions.map((s) => s.session_id)).toEqual(expected);
    const summary = await t.api.realtime.cost(t.robotId, { start_time, end_time });
    expect(summary.session_count).toBe(expected.length);
    // E12 rounds each session to micro-dollars, E11 the sum: they agree to a cent.
    expect(summary.total_cost).toBeCloseTo(costs.total_cost, 2);
    expect(summary.total_turns).toBe(usage.totals!.turn_count);
    // One call's window: its own created_at at both ends, inclusive.
    const one = all[777]!;
    const single = await t.api.realtime.usage(t.robotId, { start_time: one.created_at!, end_time: one.created_at! });
    expect(single.sessions).toEqual([one]);
    // Only one bound each.
    expect((await t.api.realtime.usage(t.robotId, { start_time })).session_count).toBe(all.filter((s) => s.created_at! >= start_time).length);
    expect((await t.api.realtime.usage(t.robotId, { end_time })).session_count).toBe(all.filter((s) => s.created_at! <= end_time).length);
  });

  it('leave out a deleted session and count a new live one in order', async () => {
    await seed({ sessions: 100 });
    const all = (await t.api.realtime.usage(t.robotId)).sessions;
    const victim = all[50]!.session_id;
    expect((await t.raw('DELETE', `/v1/${t.robotId}/sessions/${victim}`)).status).toBe(200);
    const after = await t.api.realtime.usage(t.robotId);
    expect(after.session_count).toBe(102);
    expect(after.sessions.map((s) => s.session_id)).toEqual(all.map((s) => s.session_id).filter((id) => id !== victim));
    await t.emu.context.deletions.idle();
    expect(t.emu.context.store.messages.where('session_id', victim)).toEqual([]);
    expect(t.emu.context.store.usage.where('session_id', victim)).toEqual([]);
  });
});
