import { phaseMs, TIMING_PHASES, type TimingPhase } from '../phases.js';
import type { CallTurn } from '../types.js';

/** One Artillery metric sample: `events.emit(kind, name, value)`. */
export interface MetricSample {
  kind: 'histogram' | 'counter';
  name: string;
  value: number;
}

/** Prefix of every metric this package emits. */
export const METRIC_PREFIX = 'voice.';

/** The metric names of docs/qa.md "Load tests" (CONTRACT: at least these). */
export const METRICS = {
  connectMs: 'voice.connect_ms',
  firstResponseMs: 'voice.first_response_ms',
  perceivedLatencyMs: 'voice.perceived_latency_ms',
  mos: 'voice.mos',
  turns: 'voice.turns',
  turnsFailed: 'voice.turns_failed',
  answersCut: 'voice.answers_cut',
  calls: 'voice.calls',
  callsFailed: 'voice.calls_failed',
  activeCalls: 'voice.active_calls',
  generatorCpuPct: 'voice.generator_cpu_pct',
  machineCpuPct: 'voice.machine_cpu_pct',
} as const;

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** `voice.phase.<phase>_ms`: a phase of `Turn.timing` (`endpointing` → `voice.phase.endpointing_ms`). */
export function phaseMetricName(phase: TimingPhase): string {
  return `${METRIC_PREFIX}phase.${phase}_ms`;
}

/**
 * A turn's perceived latency as the load run counts it: the page's measure, else the caller's own
 * (`clientPerceivedMs`: a Node caller plays no audio, so its turns carry none); null when neither.
 * The metric and the calls file both use this, so they agree.
 */
export function perceivedMs(turn: Pick<CallTurn, 'perceivedLatencyMs'>, clientPerceivedMs?: number | null): number | null {
  if (finite(turn.perceivedLatencyMs)) return turn.perceivedLatencyMs;
  return finite(clientPerceivedMs) ? clientPerceivedMs : null;
}

/**
 * The samples of one finished turn: first response, perceived latency (the page's measure, else
 * `clientPerceivedMs`, the caller's own: its speech end to the answer's first audio), a cut answer,
 * and one `voice.phase.<phase>_ms` per measured phase of `turn.timing` (docs/quality.md "Where the
 * time goes"; none where the page's kb-voice has no `Turn.timing`).
 */
export function turnSamples(turn: CallTurn, clientPerceivedMs?: number | null): MetricSample[] {
  // The `_failed` twin first (see callStartSamples).
  const out: MetricSample[] = [{ kind: 'counter', name: METRICS.turnsFailed, value: 0 }, { kind: 'counter', name: METRICS.turns, value: 1 }];
  if (finite(turn.firstResponseMs)) out.push({ kind: 'histogram', name: METRICS.firstResponseMs, value: turn.firstResponseMs });
  const perceived = perceivedMs(turn, clientPerceivedMs);
  if (perceived !== null) out.push({ kind: 'histogram', name: METRICS.perceivedLatencyMs, value: perceived });
  out.push({ kind: 'counter', name: METRICS.answersCut, value: turn.interrupted ? 1 : 0 });
  for (const phase of TIMING_PHASES) {
    const ms = phaseMs(turn, phase);
    if (ms !== null) out.push({ kind: 'histogram', name: phaseMetricName(phase), value: ms });
  }
  return out;
}

/**
 * The samples of a call's start: one call, and the failure counters at zero so that `ensure`
 * conditions can name them in a run where nothing failed. Each `_failed` counter comes before the
 * counter its name starts with (here and in {@link turnSamples}): Artillery's `ensure` puts metrics
 * into a condition by substring replacement in the report's key order, so `voice.turns` reaching the
 * report before `voice.turns_failed` breaks every condition on the latter (test/qa/ensure-order.test.ts).
 */
export function callStartSamples(): MetricSample[] {
  return [
    { kind: 'counter', name: METRICS.callsFailed, value: 0 },
    { kind: 'counter', name: METRICS.turnsFailed, value: 0 },
    { kind: 'counter', name: METRICS.calls, value: 1 },
  ];
}

/** Emits `samples` on Artillery's per-VU event emitter. */
export function emitSamples(events: { emit(kind: string, name: string, value: number): unknown }, samples: readonly MetricSample[]): void {
  for (const s of samples) events.emit(s.kind, s.name, s.value);
}
