import * as z from 'zod/mini';
import { DateTime, DateTimeOut, Int, maybe, JsonObject, Num, NumOr0 } from './common.js';

/** E1 request (RealtimeWarmupIn): every field optional, `language` defaults to `ja`. */
export const RealtimeWarmupIn = z.strictObject({
  language: z._default(z.string(), 'ja'),
  session_id: z.optional(z.nullable(z.string())),
  user_identifier: z.optional(z.nullable(z.string())),
});
export type RealtimeWarmupIn = z.input<typeof RealtimeWarmupIn>;

/** E1 response: `success` is false when an upstream step failed (the error is swallowed). */
export const RealtimeWarmupOut = z.looseObject({ success: z.boolean() });
export type RealtimeWarmupOut = z.infer<typeof RealtimeWarmupOut>;

/** The object form of the `interruptions` option (CONTRACT.md "Turn-taking and noise"). */
export const InterruptionsObject = z.strictObject({
  mode: z.optional(z.enum(['auto', 'off'])),
  minSpeechMs: z.optional(z.int().check(z.gte(0), z.lte(5000))),
  resumeAfterMs: z.optional(z.int().check(z.gte(0), z.lte(10_000))),
});
export type InterruptionsObject = z.infer<typeof InterruptionsObject>;

/** Signaling request (CONTRACT.md): the offer carries its ICE candidates (no trickle). */
export const RealtimeSessionIn = z.strictObject({
  type: z.literal('offer'),
  sdp: z.string().check(z.minLength(1)),
  language: z.optional(z.string()),
  user_identifier: z.optional(z.string()),
  session_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  /**
   * Barge-in: `auto` (default) lets the caller's speech interrupt an answer; `off` queues speech
   * heard during an answer as the next turn instead. The object form sets the model's timing:
   * `minSpeechMs` of speech (default 500) cuts the answer, and a sound that stops sooner is a false
   * interruption, after which the held answer resumes once `resumeAfterMs` (default 2000) passed.
   */
  interruptions: z.optional(z.union([z.enum(['auto', 'off']), InterruptionsObject])),
  /**
   * Who ends the caller's utterances: `auto` (default) the service, after its end-of-speech silence;
   * `push-to-talk` the client, with `input.commit` when the caller releases talk (a pause while the
   * caller holds talk ends nothing).
   */
  turn_taking: z.optional(z.enum(['auto', 'push-to-talk'])),
});
export type RealtimeSessionIn = z.input<typeof RealtimeSessionIn>;

/** Signaling response, status 201. */
export const RealtimeSessionOut = z.looseObject({
  session_id: z.string(),
  /** Absent is read as `answer` (a service that sends only the SDP); any other value fails. */
  type: z._default(z.literal('answer'), 'answer'),
  sdp: z.string(),
});
export type RealtimeSessionOut = z.infer<typeof RealtimeSessionOut>;

/** E11/E12 query (CONTRACT.md). */
export const RealtimeCostQuery = z.strictObject({
  start_time: z.optional(DateTime),
  end_time: z.optional(DateTime),
  model: z._default(z.string(), 'auto'),
});
export type RealtimeCostQuery = z.input<typeof RealtimeCostQuery>;

/** E13 query (CONTRACT.md). */
export const RealtimeUsageQuery = z.strictObject({
  start_time: z.optional(DateTime),
  end_time: z.optional(DateTime),
});
export type RealtimeUsageQuery = z.input<typeof RealtimeUsageQuery>;

const zero = NumOr0;

/** One line of the E11 cost summary. */
export const CostItem = z.looseObject({
  category: z.string(),
  tokens: Num,
  unit_price: Num,
  cost: Num,
});
export type CostItem = z.infer<typeof CostItem>;

/** E11 response. */
export const RealtimeCostSummary = z.looseObject({
  bot_id: z.string(),
  model: maybe(z.string()),
  session_count: Num,
  /** The three figures below may be absent (or null): the spec does not call them required, and 0 would be a claim. */
  total_turns: maybe(Num),
  total_duration_ms: maybe(Num),
  cache_hit_rate: maybe(Num),
  items: z.array(CostItem),
  total_cost: Num,
  totals: maybe(JsonObject),
  start_time: maybe(DateTimeOut),
  end_time: maybe(DateTimeOut),
});
export type RealtimeCostSummary = z.infer<typeof RealtimeCostSummary>;

/** Members every per-session record of E12 and E13 has. */
const sessionRecord = {
  session_id: z.string(),
  created_at: maybe(DateTimeOut),
  user_identifier: maybe(z.string()),
  language: maybe(z.string()),
  turn_count: zero,
  duration_ms: zero,
  total_tokens: zero,
  input_text_tokens: zero,
  input_audio_tokens: zero,
  cached_tokens: zero,
  output_text_tokens: zero,
  output_audio_tokens: zero,
};

/** One session of E12; numeric fields default to 0. */
export const SessionCostRecord = z.looseObject({
  ...sessionRecord,
  bot_id: maybe(z.string()),
  provider: maybe(z.string()),
  bot_name: maybe(z.string()),
  total_cost: zero,
});
export type SessionCostRecord = z.infer<typeof SessionCostRecord>;

/** E12 response. */
export const RealtimeSessionCostList = z.looseObject({
  bot_id: z.string(),
  model: maybe(z.string()),
  session_count: Num,
  total_cost: Num,
  sessions: z.array(SessionCostRecord),
  start_time: maybe(DateTimeOut),
  end_time: maybe(DateTimeOut),
});
export type RealtimeSessionCostList = z.infer<typeof RealtimeSessionCostList>;

/** One session of E13; numeric fields default to 0. */
export const SessionUsageRecord = z.looseObject({
  ...sessionRecord,
  title: maybe(z.string()),
  input_tokens: zero,
  output_tokens: zero,
});
export type SessionUsageRecord = z.infer<typeof SessionUsageRecord>;

/** E13 response. */
export const RealtimeUsage = z.looseObject({
  bot_id: z.string(),
  session_count: Num,
  totals: maybe(JsonObject),
  sessions: z.array(SessionUsageRecord),
  start_time: maybe(DateTimeOut),
  end_time: maybe(DateTimeOut),
});
export type RealtimeUsage = z.infer<typeof RealtimeUsage>;

/** E14 query (CONTRACT.md). */
export const RealtimeAudioQuery = z.strictObject({
  session_id: z.string().check(z.minLength(1)),
  segment_index: z.optional(z.int().check(z.gte(0))),
});
export type RealtimeAudioQuery = z.input<typeof RealtimeAudioQuery>;

/** An epoch time (seconds below 1e11, else ms) made ISO 8601; anything else as {@link DateTimeOut}. */
const ExpiresAt = z.pipe(
  z.transform((value: unknown) => {
    const epoch = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
    if (typeof epoch === 'number' && Number.isFinite(epoch) && epoch >= 0) return new Date(epoch < 1e11 ? epoch * 1000 : epoch).toISOString();
    return value;
  }),
  DateTimeOut,
);

/** One recorded audio segment with its presigned URL (E14; the spec does not show the fields). */
export const AudioSegment = z.looseObject({
  /** Absent: the segment's position in the list (see {@link RealtimeAudioOut}). */
  segment_index: z.optional(Int),
  url: z.string(),
  /** When the URL stops working (ISO 8601; epoch seconds or ms are read and made ISO); absent when the service does not say. */
  expires_at: z.optional(ExpiresAt),
  /** Length of the segment; absent when the service does not say (never guessed). */
  duration_ms: maybe(Num),
  /** Media type; absent when the service does not say. */
  content_type: maybe(z.string()),
});
/** A segment as read: `segment_index` always set. */
export type AudioSegment = z.infer<typeof AudioSegment> & { segment_index: number };

/** E14 response (CONTRACT.md). */
export const RealtimeAudioOut = z.looseObject({
  session_id: z.string(),
  /** A segment without `segment_index` gets its position in the list (the spec does not name the fields). */
  segments: z.pipe(z.array(AudioSegment), z.transform((segments) => segments.map((s, i): AudioSegment => ({ ...s, segment_index: s.segment_index ?? i })))),
});
export type RealtimeAudioOut = z.infer<typeof RealtimeAudioOut>;
