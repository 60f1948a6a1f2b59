import { phaseValues, TIMING_PHASES, type TimingPhase } from '../phases.js';
import { percentile } from '../stats.js';
import type { CallReport, VoiceCallEvidence } from '../types.js';

type Interruptions = { byCaller: number; byApp: number; false: number };

/** Latency percentiles (ms, nearest rank); null when nothing was measured. */
export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** One call in `summary.json`. */
export interface SummaryCall {
  /** The test's title path, `file › describe › title`. */
  test: string;
  /** The test's final status (`passed`, `failed`, `timedOut`, `skipped`, `interrupted`). */
  status: string;
  /** Finished turns of the call. */
  turns: number;
  /** `VoiceSession.report()` of the call (quality included), null when it could not be fetched. */
  report: CallReport | null;
}

/** `summary.json` (CONTRACT.md, "QA with Playwright"). */
export interface Summary {
  calls: SummaryCall[];
  overall: {
    calls: number; turns: number; firstResponseMs: Percentiles; perceivedLatencyMs: Percentiles;
    /** Each phase of `Turn.timing` (docs/quality.md "Where the time goes") over the measured turns. */
    phasesMs: Record<TimingPhase, Percentiles>;
    /**
     * Answers cut, over the calls whose report says (`report().interruptions` summed): by the
     * caller, by the app, and false interruptions (paused, then resumed).
     */
    interruptions?: Interruptions;
  };
}

/** A test's calls as the reporter collected them from its attachments. */
export interface CollectedTest {
  test: string;
  status: string;
  /** Whether the status is what the test expected (a `test.fail()` that failed is expected). */
  expected: boolean;
  file: string;
  errors: string[];
  calls: Array<{ evidence: VoiceCallEvidence; audio: Array<{ name: string; href: string }> }>;
  /** Attachments of the test left out, and why (a malformed `voice-call.json`); shown on its card. */
  problems?: string[];
}

/** Nearest-rank percentiles of `values` (ms, rounded). */
export function percentiles(values: readonly number[]): Percentiles {
  const at = (p: number) => {
    const v = percentile(values, p);
    return v === null ? null : Math.round(v);
  };
  return { p50: at(50), p95: at(95), p99: at(99) };
}

/** Latencies of a set of calls (only measured values count). */
export function latencies(evidence: readonly VoiceCallEvidence[]): { firstResponseMs: number[]; perceivedLatencyMs: number[] } {
  return {
    firstResponseMs: evidence.flatMap((e) => e.latency.firstResponseMs),
    perceivedLatencyMs: evidence.flatMap((e) => e.latency.perceivedLatencyMs),
  };
}

/** Percentiles of each phase of the turns of a set of calls. */
export function phasePercentiles(evidence: readonly VoiceCallEvidence[]): Record<TimingPhase, Percentiles> {
  const values = phaseValues(evidence.flatMap((e) => e.turns));
  return Object.fromEntries(TIMING_PHASES.map((p) => [p, percentiles(values[p])])) as Record<TimingPhase, Percentiles>;
}

export function buildSummary(tests: readonly CollectedTest[]): Summary {
  const calls = tests.flatMap((t) =>
    t.calls.map(({ evidence }) => ({ test: t.test, status: t.status, turns: evidence.turns.length, report: evidence.report })),
  );
  const evidence = tests.flatMap((t) => t.calls.map((c) => c.evidence));
  const all = latencies(evidence);
  return {
    calls,
    overall: {
      calls: calls.length,
      turns: calls.reduce((sum, c) => sum + c.turns, 0),
      firstResponseMs: percentiles(all.firstResponseMs),
      perceivedLatencyMs: percentiles(all.perceivedLatencyMs),
      phasesMs: phasePercentiles(evidence),
      interruptions: sumInterruptions(evidence),
    },
  };
}

/** `report().interruptions` summed over the calls (a report from a kb-voice without them counts nothing). */
export function sumInterruptions(evidence: readonly VoiceCallEvidence[]): Interruptions {
  const sum: Interruptions = { byCaller: 0, byApp: 0, false: 0 };
  for (const e of evidence) {
    const counts = (e.report as { interruptions?: Partial<Interruptions> } | null)?.interruptions;
    sum.byCaller += counts?.byCaller ?? 0;
    sum.byApp += counts?.byApp ?? 0;
    sum.false += counts?.false ?? 0;
  }
  return sum;
}
