import type { RealtimeCostSummary, RealtimeSessionCostList, RealtimeUsage, SessionCostRecord, SessionUsageRecord } from 'kb-voice/schemas';
import { costItems, roundUsd, totalCost, type TokenCounts } from './pricing.js';
import type { RobotRecord, SessionRecord, Store } from './store.js';

/**
 * E11–E13: cost and usage of a robot's realtime sessions, aggregated from the recorded usage of
 * each turn. A session belongs to the window when its `created_at` lies in
 * [`start_time`, `end_time`] (each bound optional); sessions being deleted are left out.
 */

export interface Window {
  start_time?: string;
  end_time?: string;
}

/** Parses an ISO date-time; an offset-less value is read as UTC (as the service does). */
export function parseTime(value: string): number {
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`);
}

interface SessionTotals extends TokenCounts {
  session: SessionRecord;
  turn_count: number;
}

function sessionsIn(store: Store, robotId: string, window: Window): SessionTotals[] {
  const from = window.start_time ? parseTime(window.start_time) : -Infinity;
  const to = window.end_time ? parseTime(window.end_time) : Infinity;
  return store.sessions
    .find((s) => s.robot_id === robotId && !s.deleting && parseTime(s.created_at) >= from && parseTime(s.created_at) <= to)
    .sort((a, b) => parseTime(b.created_at) - parseTime(a.created_at) || a.id.localeCompare(b.id))
    .map((session) => {
      const usage = store.usage.find((u) => u.session_id === session.id);
      const sum = (k: keyof TokenCounts) => usage.reduce((n, u) => n + u[k], 0);
      return {
        session,
        turn_count: usage.length,
        input_text_tokens: sum('input_text_tokens'),
        input_audio_tokens: sum('input_audio_tokens'),
        cached_tokens: sum('cached_tokens'),
        output_text_tokens: sum('output_text_tokens'),
        output_audio_tokens: sum('output_audio_tokens'),
      };
    });
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
  const times = rows.map((r) => r.session.created_at).sort((a, b) => parseTime(a) - parseTime(b));
  return { start_time: window.start_time ?? times[0] ?? null, end_time: window.end_time ?? times[times.length - 1] ?? null };
}

/** `model` query: `auto` means the robot's own model; another name selects sessions of that model. */
function selectModel(robot: RobotRecord, model: string, rows: SessionTotals[]): { model: string; rows: SessionTotals[] } {
  if (model === 'auto' || model === robot.model) return { model: robot.model, rows };
  return { model, rows: [] };
}

/** The members E12 and E13 records share. */
function sessionRecord(r: SessionTotals) {
  return {
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
  };
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
  const sessions: SessionCostRecord[] = selected.rows.map((r) => ({
    ...sessionRecord(r),
    bot_id: robot.id,
    provider: robot.provider,
    bot_name: robot.name,
    total_cost: totalCost(r),
  }));
  return {
    bot_id: robot.id,
    model: selected.model,
    session_count: sessions.length,
    total_cost: roundUsd(sessions.reduce((n, s) => n + s.total_cost, 0)),
    sessions,
    ...echoWindow(window, selected.rows),
  };
}

const USAGE_FIELDS = [
  'turn_count', 'duration_ms', 'input_tokens', 'output_tokens', 'total_tokens', 'input_text_tokens',
  'input_audio_tokens', 'cached_tokens', 'output_text_tokens', 'output_audio_tokens',
] as const;

/** E13: one record per session, newest first; `totals` sums each numeric field. */
export function usage(store: Store, robot: RobotRecord, window: Window): RealtimeUsage {
  const rows = sessionsIn(store, robot.id, window);
  const sessions: SessionUsageRecord[] = rows.map((r) => ({
    ...sessionRecord(r),
    title: r.session.title,
    input_tokens: inputTokens(r),
    output_tokens: outputTokens(r),
  }));
  const totals = Object.fromEntries(USAGE_FIELDS.map((k) => [k, sessions.reduce((n, s) => n + s[k], 0)]));
  return { bot_id: robot.id, session_count: sessions.length, totals, sessions, ...echoWindow(window, rows) };
}
