import type { RealtimeCostSummary, RealtimeSessionCostList, RealtimeUsage } from '../schemas/index.js';

/**
 * Recomputes the realtime cost and usage reports over one user's sessions. Only fields the relay
 * can attribute to those sessions are returned: unknown top-level fields of the upstream report are
 * dropped, since they may aggregate other users' sessions.
 */

type NumericRecord = Record<string, unknown>;

/** Removes binary floating-point noise from sums of prices (0.1 + 0.2). */
const tidy = (n: number) => (Number.isInteger(n) ? n : Math.round(n * 1e9) / 1e9);

const sum = (records: readonly NumericRecord[], field: string) =>
  tidy(records.reduce((acc, r) => acc + (typeof r[field] === 'number' ? (r[field] as number) : 0), 0));

const isNumericField = (records: readonly NumericRecord[], field: string) => records.some((r) => typeof r[field] === 'number');

/**
 * `totals` over `records`, keeping the upstream object's keys: a key naming a numeric field of the
 * records is summed, `session_count` is counted, a key in `derived` takes that value; a key that
 * cannot be attributed is dropped. With no records every attributable key is 0.
 */
export function recomputeTotals(
  upstream: Record<string, unknown> | null | undefined,
  records: readonly NumericRecord[],
  knownFields: readonly string[],
  derived: Record<string, number> = {},
) {
  if (upstream === null || upstream === undefined) return upstream;
  const out: Record<string, number> = {};
  for (const key of Object.keys(upstream)) {
    if (key === 'session_count') out[key] = records.length;
    else if (key in derived) out[key] = derived[key]!;
    else if (knownFields.includes(key) || isNumericField(records, key)) out[key] = sum(records, key);
  }
  return out;
}

const COST_FIELDS = ['turn_count', 'duration_ms', 'total_tokens', 'input_text_tokens', 'input_audio_tokens', 'cached_tokens', 'output_text_tokens', 'output_audio_tokens', 'total_cost'];
const USAGE_FIELDS = ['turn_count', 'duration_ms', 'input_tokens', 'output_tokens', 'total_tokens', 'input_text_tokens', 'input_audio_tokens', 'cached_tokens', 'output_text_tokens', 'output_audio_tokens'];

/**
 * `start_time`/`end_time` of a scoped report: the user's own oldest and newest session, never the
 * upstream's (which span every user's sessions of the robot); absent when the user has none.
 */
export function ownSpan(sessions: readonly { created_at?: string | null | undefined }[]): { start_time: string | undefined; end_time: string | undefined } {
  let first: string | undefined;
  let last: string | undefined;
  let firstMs = Infinity;
  let lastMs = -Infinity;
  for (const s of sessions) {
    if (!s.created_at) continue;
    const ms = Date.parse(s.created_at);
    if (Number.isNaN(ms)) continue;
    if (ms < firstMs) (firstMs = ms), (first = s.created_at);
    if (ms > lastMs) (lastMs = ms), (last = s.created_at);
  }
  return { start_time: first, end_time: last };
}

/** `o` without its undefined fields (a loop: no entry arrays per report, and no `delete`, which would turn the reply into a slow dictionary object). */
const defined = <T extends Record<string, unknown>>(o: T): T => {
  const out: Record<string, unknown> = {};
  for (const key in o) if (o[key] !== undefined) out[key] = o[key];
  return out as T;
};

/** E12 restricted to the session records in `keep`: `session_count` and `total_cost` recomputed. */
export function scopeSessionCosts(list: RealtimeSessionCostList, keep: ReadonlySet<object>): RealtimeSessionCostList {
  const sessions = list.sessions.filter((s) => keep.has(s));
  return defined({
    bot_id: list.bot_id,
    model: list.model,
    session_count: sessions.length,
    total_cost: sum(sessions, 'total_cost'),
    sessions,
    ...ownSpan(sessions),
  });
}

/** E13 restricted to the session records in `keep`: `session_count` and `totals` recomputed. */
export function scopeUsage(usage: RealtimeUsage, keep: ReadonlySet<object>): RealtimeUsage {
  const sessions = usage.sessions.filter((s) => keep.has(s));
  return defined({
    bot_id: usage.bot_id,
    session_count: sessions.length,
    totals: recomputeTotals(usage.totals, sessions, USAGE_FIELDS),
    sessions,
    ...ownSpan(sessions),
  });
}

/**
 * The per-session token field each cost category counts. The first five are the categories the
 * service's price table uses (and the emulator follows); others are tried as `<category>_tokens`.
 */
const CATEGORY_FIELD: Record<string, string> = {
  text_input: 'input_text_tokens',
  audio_input: 'input_audio_tokens',
  cached_input: 'cached_tokens',
  text_output: 'output_text_tokens',
  audio_output: 'output_audio_tokens',
};
const TOKEN_FIELDS = ['input_text_tokens', 'input_audio_tokens', 'cached_tokens', 'output_text_tokens', 'output_audio_tokens', 'total_tokens'];

const tokenField = (category: string) => CATEGORY_FIELD[category] ?? TOKEN_FIELDS.find((f) => f === `${category}_tokens`);

/**
 * E11 for one user, rebuilt from the upstream summary (for categories and prices) and the user's
 * scoped E12 sessions: counts, turns, duration and total cost are sums over the sessions; each cost
 * item's tokens are the sum of its token field and its cost is the upstream item's cost in
 * proportion to those tokens (so it holds whatever unit the price is in). A token is in exactly one
 * category, so input tokens are text + audio + cached and `cache_hit_rate` is cached over input
 * (4 decimals). Items whose category names no per-session token field are dropped.
 */
export function summarizeCosts(summary: RealtimeCostSummary, scoped: RealtimeSessionCostList): RealtimeCostSummary {
  const sessions = scoped.sessions;
  const items = summary.items.flatMap((item) => {
    const field = tokenField(item.category);
    if (!field) return [];
    const tokens = sum(sessions, field);
    const cost = item.tokens > 0 ? tidy((item.cost * tokens) / item.tokens) : 0;
    return [{ category: item.category, tokens, unit_price: item.unit_price, cost }];
  });
  const cached = sum(sessions, 'cached_tokens');
  const input = sum(sessions, 'input_text_tokens') + sum(sessions, 'input_audio_tokens') + cached;
  const output = sum(sessions, 'output_text_tokens') + sum(sessions, 'output_audio_tokens');
  return defined({
    bot_id: summary.bot_id,
    model: summary.model,
    session_count: sessions.length,
    total_turns: sum(sessions, 'turn_count'),
    total_duration_ms: sum(sessions, 'duration_ms'),
    cache_hit_rate: input > 0 ? Math.round((cached / input) * 10_000) / 10_000 : 0,
    items,
    total_cost: sum(sessions, 'total_cost'),
    totals: recomputeTotals(summary.totals, sessions, COST_FIELDS, { input_tokens: input, output_tokens: output }),
    ...ownSpan(sessions),
  });
}
