import type { PerceivedLatencyOptions } from './perceived.js';

/**
 * Options of the session's call-quality tracking (`VoiceSession` option `quality`). A leaf module:
 * the session's options name it without depending on the tracker (which depends on the attempt).
 */
export interface QualityOptions {
  /** Between `getStats()` samples (ms); default 1000. 0 turns sampling off (quality stays `unknown`). */
  intervalMs?: number;
  /** The span each sample covers (ms); default 5000. */
  windowMs?: number;
  /** Thresholds of `Turn.perceivedLatencyMs` (docs/quality.md). */
  perceivedLatency?: PerceivedLatencyOptions;
}
