import type { RealtimeCostSummary, RealtimeSessionCostList, RealtimeUsage, SessionCostRecord, SessionUsageRecord } from 'kb-voice/schemas';
import { costItems, roundUsd, totalCost, type TokenCounts } from './pricing.js';
import type { RobotRecord, SessionRecord, Store } from './store.js';
import { parseTime } from './time.js';

/**
 * E11–E13: cost and usage of a robot's realtime sessions, aggregated from the recorded usage of
 * each turn. A session belongs to the window when its `created_at` lies in
 * [`start_time`, `end_time`] (each bound optional); sessions being deleted are left out.
 */

export interface Window {
  start_time?: string;
  end_time?: string;
}

interface SessionTotals extends TokenCounts {
  session: SessionRecord;
  turn_count: number;
}

/** The robot's sessions in the window, newest first, each with its usage summed (indexed reads only). */
function sessionsIn(store: Store, robotId: string, window: Window): SessionTotals[] {
  const from = window.start_time ? parseTime(window.start_time) : -Infinity;
  const to = window.end_time ? parseTime(window.end_time) : Infinity;
  const rows: SessionTotals[] = [];
  for (const session of store.sessions.between(robotId, from, to)) {
    if (session.deleting) continue;
    const row: SessionTotals = {
      session, turn_count: 0, input_text_tokens: 0, input_audio_tokens: 0, cached_tokens: 0, output_text_tokens: 0, output_audio_tokens: 0,
    };
    for (const u of store.usage.where('session_id', session.id)) {
      row.turn_count++;
      row.input_text_tokens += u.input_text_tokens;
      row.input_audio_tokens += u.input_audio_tokens;
      row.cached_tokens += u.cached_tokens;
      row.output_text_tokens += u.output_text_tokens;
      row.output_audio_tokens += u.output_audio_tokens;
    }
    rows.push(row);
  }
  return rows;
}

const inputTokens = (t: TokenCounts) => t.input_text_tokens + t.input_audio_tokens + t.cached_tokens;
const outputTokens = (t: TokenCounts) => t.output_text_tokens + t.output_audio_tokens;

function addCounts(rows: TokenCounts[]): TokenCounts {
  const out: TokenCounts = { input_text_tokens: 0, input_audio_tokens: 0, cached_tokens: 0, output_text_tokens: 0, output_audio_tokens: 0 };
  for (const r of rows) for (const k of Object.keys(out) as (keyof TokenCounts)[]) out[k] += r[k];
  return out;
}

/** The window echoed in responses: the bounds asked for, else the span of the sessions found. */
function echoWindow(window: Window, rows: SessionTotals[]): { start_time: string | null; end_time: string | null } {
  // rows are newest first
  return { start_time: window.start_time ?? rows[rows.length - 1]?.session.created_at ?? null, end_time: window.end_time ?? rows[0]?.session.created_at ?? null };
}

/** `model` query: `auto` means the robot's own model; another name selects sessions of that model. */
function selectModel(robot: RobotRecord, model: string, rows: SessionTotals[]): { model: string; rows: SessionTotals[] } {
  if (model === 'auto' || model === robot.model) return { model: robot.model, rows };
  return { model, rows: [] };
}

/**
 * The members E12 and E13 records share, plus the record's own, in one literal: no spread, so
 * every record has the same shape and 10,000 of them build and serialize fast.
 */
function sessionRecord<X extends object>(r: SessionTotals, own: X) {
  return Object.assign(
    {
      session_id: r.session.id,
      created_at: r.session.created_at,
      user_identifier: r.session.user_identifier,
      language: r.session.language,
      turn_count: r.turn_count,
      duration_ms: r.session.duration_ms,
      total_tokens: inputTokens(r) + outputTokens(r),
      input_text_tokens: r.input_text_tokens,
      input_audio_tokens: r.input_audio_tokens,
      cached_tokens: r.cached_tokens,
      output_text_tokens: r.output_text_tokens,
      output_audio_tokens: r.output_audio_tokens,
    },
    own,
  );
}

/** E11. `totals` holds each token category, input/output/total tokens and the total cost. */
export function costSummary(store: Store, robot: RobotRecord, window: Window, model: string): RealtimeCostSummary {
  const selected = selectModel(robot, model, sessionsIn(store, robot.id, window));
  const rows = selected.rows;
  const counts = addCounts(rows);
  const input = inputTokens(counts);
  const total_cost = totalCost(counts);
  return {
    bot_id: robot.id,
    model: selected.model,
    session_count: rows.length,
    total_turns: rows.reduce((n, r) => n + r.turn_count, 0),
    total_duration_ms: rows.reduce((n, r) => n + r.session.duration_ms, 0),
    cache_hit_rate: input === 0 ? 0 : Math.round((counts.cached_tokens / input) * 10_000) / 10_000,
    items: costItems(counts),
    total_cost,
    totals: { ...counts, input_tokens: input, output_tokens: outputTokens(counts), total_tokens: input + outputTokens(counts), total_cost },
    ...echoWindow(window, rows),
  };
}

/** E12: one record per session, newest first. */
export function sessionCosts(store: Store, robot: RobotRecord, window: Window, model: string): RealtimeSessionCostList {
  const selected = selectModel(robot, model, sessionsIn(store, robot.id, window));
  let total = 0;
  const sessions: SessionCostRecord[] = selected.rows.map((r) => {
    const record = sessionRecord(r, { bot_id: robot.id, provider: robot.provider, bot_name: robot.name, total_cost: totalCost(r) });
    total += record.total_cost;
    return record;
  });
  return {
    bot_id: robot.id,
    model: selected.model,
    session_count: sessions.length,
    total_cost: roundUsd(total),
    sessions,
    ...echoWindow(window, selected.rows),
  };
}

/** E13: one record per session, newest first; `totals` sums each numeric field. */
export function usage(store: Store, robot: RobotRecord, window: Window): RealtimeUsage {
  const rows = sessionsIn(store, robot.id, window);
  const totals = {
    turn_count: 0, duration_ms: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, input_text_tokens: 0,
    input_audio_tokens: 0, cached_tokens: 0, output_text_tokens: 0, output_audio_tokens: 0,
  };
  const sessions: SessionUsageRecord[] = rows.map((r) => {
    const record = sessionRecord(r, { title: r.session.title, input_tokens: inputTokens(r), output_tokens: outputTokens(r) });
    totals.turn_count += record.turn_count;
    totals.duration_ms += record.duration_ms;
    totals.input_tokens += record.input_tokens;
    totals.output_tokens += record.output_tokens;
    totals.total_tokens += record.total_tokens;
    totals.input_text_tokens += record.input_text_tokens;
    totals.input_audio_tokens += record.input_audio_tokens;
    totals.cached_tokens += record.cached_tokens;
    totals.output_text_tokens += record.output_text_tokens;
    totals.output_audio_tokens += record.output_audio_tokens;
    return record;
  });
  return { bot_id: robot.id, session_count: sessions.length, totals, sessions, ...echoWindow(window, rows) };
}
