import type {
  AudioSegment, RealtimeAudioOut, RealtimeAudioQuery, RealtimeSessionCostList, RealtimeCostQuery, RealtimeSessionIn,
  RealtimeSessionOut, RealtimeUsage, RealtimeUsageQuery, RealtimeWarmupIn, RealtimeWarmupOut, SessionCostRecord,
  SessionUsageRecord,
} from '../schemas/realtime.js';
import { fromApiFailure, type VoiceSessionError } from './errors.js';
import type { Turn } from './events.js';
import { countInterruptions, type InterruptionCounts } from './interruptions.js';
import type { QualityReport } from './quality/report.js';
import type { MessagesApi } from './sources/api.js';
import type { PreConnectReport } from './pre-connect-options.js';

/**
 * What VoiceSession needs from an API client: `createApiClient(...)` pointed at your relay fits.
 * Any object with these methods works (e.g. your own signaling transport).
 */
export interface VoiceSessionApi {
  realtime: {
    connect(aiId: string, body: RealtimeSessionIn, options?: { signal?: AbortSignal }): Promise<RealtimeSessionOut>;
    /** PATCH of the session resource (trickle ICE, ICE restart); without it offers carry their candidates. */
    trickle?(aiId: string, sessionId: string, fragment: string, options?: { signal?: AbortSignal }): Promise<string | null>;
    warmup(aiId: string, body?: RealtimeWarmupIn): Promise<RealtimeWarmupOut>;
    usage(aiId: string, query?: RealtimeUsageQuery): Promise<RealtimeUsage>;
    sessionCosts(aiId: string, query?: RealtimeCostQuery): Promise<RealtimeSessionCostList>;
    audio(aiId: string, query: RealtimeAudioQuery): Promise<RealtimeAudioOut>;
  };
  /** E17, E18 and E6: `Turn.sources` and `rate()` (optional: without it turns have no sources and rate() is `not_supported`). */
  sessions?: MessagesApi;
}

/**
 * Everything known about one call: what `VoiceSession.report()` resolves to (docs/client.md,
 * "Report"). Each service part (usage, cost, audio) is there or has its own error in `errors`, so a
 * UI shows what it has.
 */
export interface VoiceReport {
  /** The service's id of the session (the signaling answer's `session_id`). */
  sessionId: string;
  /** The robot called. */
  aiId: string;
  /** The turns of the call as the session tracked them, oldest first. */
  turns: Turn[];
  /**
   * This session's E13 record (turn count, `duration_ms`, token counts; numbers the service does not
   * send are 0). `null` when the service has no record of it (yet), or when E13 failed: then
   * `errors.usage` says why.
   */
  usage: SessionUsageRecord | null;
  /**
   * This session's E12 record: its token counts and `total_cost`, a number in the unit the service
   * reports (the spec does not show the unit or currency). `null` when the service has no record
   * (yet), or when E12 failed: then `errors.cost` says why.
   */
  cost: SessionCostRecord | null;
  /**
   * Recorded audio segments with presigned download URLs (E14), oldest first. Empty when the call has
   * no recording (E14 answered 404), or when E14 failed: then `errors.audio` says why.
   */
  audio: AudioSegment[];
  /** The call's quality over all its samples (docs/quality.md). */
  quality: QualityReport;
  /** The pre-connect buffer: audio kept from start() until connected, sent and dropped (ms); null when it was off (docs/client.md). */
  preConnect: PreConnectReport | null;
  /** Why a part is missing: the failure of its request (`VoiceSessionError` with its code), per part. Empty when every part arrived. */
  errors: ReportErrors;
  /** Answers cut by the caller, by the app, and false interruptions (sounds that paused an answer that then resumed). */
  interruptions: InterruptionCounts;
}

/** The failed parts of a {@link VoiceReport}, each with its error. */
export interface ReportErrors {
  usage?: VoiceSessionError;
  cost?: VoiceSessionError;
  audio?: VoiceSessionError;
}

/** The report's former name, kept for existing code: the same type as {@link VoiceReport}. */
export type SessionReport = VoiceReport;

/**
 * How far around the call's start the E12/E13 window reaches: the service stamps the session with
 * its own clock, so the caller's clock may be off by up to this much (an hour; a device further
 * off gets `usage`/`cost` null) and the window still holds it.
 */
export const REPORT_WINDOW_MARGIN_MS = 60 * 60 * 1000;

/** The E12/E13 time window of a call that started at `startedAt` (epoch ms), as of `now`. */
export function reportWindow(startedAt: number, now: number): { start_time: string; end_time: string } {
  return {
    start_time: new Date(startedAt - REPORT_WINDOW_MARGIN_MS).toISOString(),
    end_time: new Date(Math.max(now, startedAt) + REPORT_WINDOW_MARGIN_MS).toISOString(),
  };
}

/** E14's 404: the session has no recording (a call without audio, recording off): no audio, not an error. */
const noRecording = (error: unknown) => (error as { status?: unknown } | null)?.status === 404;

/**
 * Fetches usage (E13), cost (E12) and audio (E14) of one session in parallel; E12 and E13 are asked
 * for the call's window only (`window`), so the report costs the same however long the robot's
 * history is. Each part that fails is reported in `errors` and the others are kept; it rejects (with
 * the usage failure) only when all three failed, as there is nothing of the service's to show.
 */
export async function fetchReport(api: VoiceSessionApi, aiId: string, sessionId: string, turns: readonly Turn[], window: { start_time: string; end_time: string }, quality: QualityReport, preConnect: PreConnectReport | null = null): Promise<VoiceReport> {
  // Each request is started inside then(): a custom api object that throws is a failed part too.
  const ask = <T>(request: () => Promise<T>) => Promise.resolve().then(request);
  const [usage, cost, audio] = await Promise.allSettled([
    ask(() => api.realtime.usage(aiId, window)),
    ask(() => api.realtime.sessionCosts(aiId, window)),
    ask(() => api.realtime.audio(aiId, { session_id: sessionId })).catch((error: unknown) => {
      if (noRecording(error)) return null;
      throw error;
    }),
  ]);
  if (usage.status === 'rejected' && cost.status === 'rejected' && audio.status === 'rejected') throw usage.reason;
  const errors: ReportErrors = {};
  if (usage.status === 'rejected') errors.usage = fromApiFailure(usage.reason, 'Usage (E13)', 'report_failed');
  if (cost.status === 'rejected') errors.cost = fromApiFailure(cost.reason, 'Cost (E12)', 'report_failed');
  if (audio.status === 'rejected') errors.audio = fromApiFailure(audio.reason, 'Audio (E14)', 'report_failed');
  return {
    sessionId,
    aiId,
    turns: [...turns],
    usage: usage.status === 'fulfilled' ? (usage.value.sessions.find((s) => s.session_id === sessionId) ?? null) : null,
    cost: cost.status === 'fulfilled' ? (cost.value.sessions.find((s) => s.session_id === sessionId) ?? null) : null,
    audio: audio.status === 'fulfilled' ? (audio.value?.segments ?? []) : [],
    quality,
    preConnect,
    errors,
    interruptions: countInterruptions(turns),
  };
}
