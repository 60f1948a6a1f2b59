import type {
  AudioSegment, RealtimeAudioOut, RealtimeAudioQuery, RealtimeSessionCostList, RealtimeCostQuery, RealtimeSessionIn,
  RealtimeSessionOut, RealtimeUsage, RealtimeUsageQuery, RealtimeWarmupIn, RealtimeWarmupOut, SessionCostRecord,
  SessionUsageRecord,
} from '../schemas/realtime.js';
import type { Turn } from './events.js';
import { countInterruptions, type InterruptionCounts } from './interruptions.js';
import type { QualityReport } from './quality/report.js';

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
}

/** Everything known about one call after it ended. */
export interface SessionReport {
  sessionId: string;
  aiId: string;
  turns: Turn[];
  /** This session's E13 record; null when the service has none (yet). */
  usage: SessionUsageRecord | null;
  /** This session's E12 record; null when the service has none (yet). */
  cost: SessionCostRecord | null;
  /** Recorded audio segments with presigned download URLs (E14). */
  audio: AudioSegment[];
  /** The call's quality over all its samples (docs/quality.md). */
  quality: QualityReport;
  /** Answers cut by the caller, by the app, and false interruptions (sounds that paused an answer that then resumed). */
  interruptions: InterruptionCounts;
}

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

/**
 * Fetches usage (E13), cost (E12) and audio (E14) of one session in parallel; E12 and E13 are asked
 * for the call's window only (`window`), so the report costs the same however long the robot's
 * history is. Any failure rejects.
 */
export async function fetchReport(api: VoiceSessionApi, aiId: string, sessionId: string, turns: readonly Turn[], window: { start_time: string; end_time: string }, quality: QualityReport): Promise<SessionReport> {
  const interruptions = countInterruptions(turns);
  const [usage, cost, audio] = await Promise.all([
    api.realtime.usage(aiId, window),
    api.realtime.sessionCosts(aiId, window),
    api.realtime.audio(aiId, { session_id: sessionId }),
  ]);
  return {
    sessionId,
    aiId,
    turns: [...turns],
    usage: usage.sessions.find((s) => s.session_id === sessionId) ?? null,
    cost: cost.sessions.find((s) => s.session_id === sessionId) ?? null,
    audio: audio.segments,
    quality,
    interruptions,
  };
}
