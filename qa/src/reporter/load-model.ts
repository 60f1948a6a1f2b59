import * as z from 'zod/mini';
import { SATURATED_CPU_PCT } from '../load/generator-cpu.js';
import type { LoadCallRecord } from '../load/call-log.js';

/** One period (or the aggregate) of Artillery's JSON report (`artillery run --output out.json`). */
const Summary = z.looseObject({ min: z.optional(z.number()), max: z.optional(z.number()), count: z.optional(z.number()), mean: z.optional(z.number()), p50: z.optional(z.number()), p95: z.optional(z.number()), p99: z.optional(z.number()) });
const Period = z.looseObject({
  period: z.optional(z.union([z.number(), z.string()])),
  firstMetricAt: z.optional(z.number()),
  counters: z._default(z.record(z.string(), z.number()), {}),
  summaries: z._default(z.record(z.string(), Summary), {}),
});
/** The parts of Artillery's JSON output the load report reads. */
export const ArtilleryReport = z.looseObject({ aggregate: Period, intermediate: z._default(z.array(Period), []) });
export type ArtilleryReport = z.infer<typeof ArtilleryReport>;
type ArtilleryPeriod = z.infer<typeof Period>;
type Stat = z.infer<typeof Summary>;

/** A metric's figures in a period: p50/p95/p99 and count (null when absent). */
export interface MetricFigures {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  count: number;
}

/** One point of the timeline: an Artillery period (10 s by default). */
export interface TimelinePoint {
  /** Start of the period (ms since the epoch), or its index when Artillery did not say. */
  at: number;
  firstResponseMs: MetricFigures;
  perceivedLatencyMs: MetricFigures;
  /** Most calls running at once that a starting call saw. */
  activeCalls: number | null;
  generatorCpuPct: number | null;
  machineCpuPct: number | null;
  errors: number;
  saturated: boolean;
  /** Which was over the limit in this period: the generator itself, or the machine (other work); null when neither. */
  saturatedBy: 'generator' | 'machine' | null;
}

/** What `index.html` and `load-summary.json` show. */
export interface LoadReport {
  kind: 'kb-voice-qa/load-report';
  version: 1;
  startedAt: string | null;
  /** Every `voice.*` histogram of the run, overall. */
  metrics: Record<string, MetricFigures>;
  /** Every `voice.*` and `vusers.*` counter of the run. */
  counters: Record<string, number>;
  /** `errors.<code>` counters, by code, most frequent first. */
  errors: Array<{ code: string; count: number }>;
  timeline: TimelinePoint[];
  /** Peak concurrency seen by a starting call. */
  peakActiveCalls: number | null;
  /** Null when the generator's CPU was never sampled; else whether any period was over the limit. */
  saturation: { generatorPeakPct: number | null; machinePeakPct: number | null; limitPct: number; saturatedPeriods: number; periods: number } | null;
  /** The failed calls, then the slowest (by their slowest turn), with transcripts: at most `worst`. */
  worstCalls: LoadCallRecord[];
}

const figures = (s: Stat | undefined): MetricFigures => ({
  p50: s?.p50 ?? null, p95: s?.p95 ?? null, p99: s?.p99 ?? null, max: s?.max ?? null, count: s?.count ?? 0,
});

/** Parses Artillery's JSON output; throws saying what is wrong. */
export function parseArtilleryReport(json: unknown): ArtilleryReport {
  const parsed = ArtilleryReport.safeParse(json);
  if (!parsed.success) throw new Error(`kb-voice-qa: not an Artillery JSON report (artillery run --output out.json): ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const nullableNumber = z.nullable(z.number());
/** A line of the calls file, checked field by field: the page shows each of them. */
const CallRecord = z.looseObject({
  kind: z.literal('kb-voice-qa/load-call'),
  caller: z.string(),
  scenario: z.string(),
  userIdentifier: z.string(),
  startedAt: z.string(),
  sessionId: z.nullable(z.string()),
  connectMs: nullableNumber,
  status: z.string(),
  error: z.nullable(z.string()),
  turns: z.array(z.looseObject({
    id: z.number(), input: z.string(), question: z.string(), answer: z.string(),
    firstResponseMs: nullableNumber, perceivedLatencyMs: z.optional(nullableNumber), interrupted: z.boolean(),
  })),
  mos: nullableNumber,
  audio: z.array(z.looseObject({ segment: z.number(), url: z.string() })),
});

/** Parses a calls file (JSON Lines of `LoadCallRecord`), skipping lines that are not valid call records. */
export function parseCallRecords(text: string): LoadCallRecord[] {
  const out: LoadCallRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const record = CallRecord.safeParse(JSON.parse(line));
      if (record.success) out.push(record.data as unknown as LoadCallRecord);
    } catch {
      // A line cut by a crash mid-write: the others still count.
    }
  }
  return out;
}

const slowest = (r: LoadCallRecord) => Math.max(0, ...r.turns.map((t) => Math.max(t.firstResponseMs ?? 0, t.perceivedLatencyMs ?? 0)));

function point(p: ArtilleryPeriod, index: number): TimelinePoint {
  const gen = p.summaries['voice.generator_cpu_pct']?.max ?? null;
  const machine = p.summaries['voice.machine_cpu_pct']?.max ?? null;
  const errors = Object.entries(p.counters).filter(([k]) => k.startsWith('errors.')).reduce((a, [, v]) => a + v, 0);
  return {
    at: p.firstMetricAt ?? (typeof p.period === 'number' ? p.period : Number(p.period ?? index)),
    firstResponseMs: figures(p.summaries['voice.first_response_ms']),
    perceivedLatencyMs: figures(p.summaries['voice.perceived_latency_ms']),
    activeCalls: p.summaries['voice.active_calls']?.max ?? null,
    generatorCpuPct: gen,
    machineCpuPct: machine,
    errors,
    saturated: (gen ?? 0) > SATURATED_CPU_PCT || (machine ?? 0) > SATURATED_CPU_PCT,
    saturatedBy: (gen ?? 0) > SATURATED_CPU_PCT ? 'generator' : (machine ?? 0) > SATURATED_CPU_PCT ? 'machine' : null,
  };
}

/** The load report of a run: Artillery's figures, the generator's saturation, the worst calls. */
export function buildLoadReport(report: ArtilleryReport, calls: readonly LoadCallRecord[] = [], options: { worst?: number } = {}): LoadReport {
  const { aggregate } = report;
  const metrics: Record<string, MetricFigures> = {};
  for (const [name, s] of Object.entries(aggregate.summaries)) if (name.startsWith('voice.')) metrics[name] = figures(s);
  const counters: Record<string, number> = {};
  for (const [name, v] of Object.entries(aggregate.counters)) if (name.startsWith('voice.') || name.startsWith('vusers.')) counters[name] = v;
  const errors = Object.entries(aggregate.counters)
    .filter(([k]) => k.startsWith('errors.'))
    .map(([k, count]) => ({ code: k.slice('errors.'.length), count }))
    .sort((a, b) => b.count - a.count);
  const timeline = report.intermediate.map(point).sort((a, b) => a.at - b.at);
  const sampled = timeline.some((p) => p.generatorCpuPct !== null) || metrics['voice.generator_cpu_pct'] !== undefined;
  const peak = (pick: (p: TimelinePoint) => number | null, name: string) => {
    const values = timeline.map(pick).filter((v): v is number => v !== null);
    return values.length ? Math.max(...values) : metrics[name]?.max ?? null;
  };
  const failed = calls.filter((c) => c.status !== 'ok');
  const ok = calls.filter((c) => c.status === 'ok').sort((a, b) => slowest(b) - slowest(a));
  const first = aggregate.firstMetricAt ?? timeline[0]?.at;
  return {
    kind: 'kb-voice-qa/load-report',
    version: 1,
    startedAt: typeof first === 'number' && first > 1e12 ? new Date(first).toISOString() : null,
    metrics, counters, errors, timeline,
    peakActiveCalls: peak((p) => p.activeCalls, 'voice.active_calls'),
    saturation: sampled
      ? {
          generatorPeakPct: peak((p) => p.generatorCpuPct, 'voice.generator_cpu_pct'),
          machinePeakPct: peak((p) => p.machineCpuPct, 'voice.machine_cpu_pct'),
          limitPct: SATURATED_CPU_PCT,
          saturatedPeriods: timeline.filter((p) => p.saturated).length,
          periods: timeline.length,
        }
      : null,
    worstCalls: [...failed, ...ok].slice(0, options.worst ?? 10),
  };
}

/**
 * Why the run's percentiles may not be the service's: `generator` when the load generator itself
 * used more than the limit of the machine; `machine` when the machine was over the limit while the
 * generator was not (other work on it: the calls still competed for the CPU); null when neither.
 */
export function saturationCause(report: LoadReport): 'generator' | 'machine' | null {
  const s = report.saturation;
  if (!s) return null;
  if ((s.generatorPeakPct ?? 0) > s.limitPct) return 'generator';
  if (s.saturatedPeriods > 0 || (s.machinePeakPct ?? 0) > s.limitPct) return 'machine';
  return null;
}

/** Whether the run's percentiles may measure the machine rather than the service (either {@link saturationCause}). */
export function generatorSaturated(report: LoadReport): boolean {
  return saturationCause(report) !== null;
}

/** One sentence of what {@link saturationCause} found, for the CLI and the page; null when nothing. */
export function saturationSentence(report: LoadReport): string | null {
  const s = report.saturation;
  const pct = (v: number | null | undefined) => (typeof v === 'number' ? `${Math.round(v)} %` : '–');
  switch (saturationCause(report)) {
    case 'generator':
      return `the load generator was saturated (it used ${pct(s?.generatorPeakPct)} of the machine at its peak, over ${s?.limitPct} %): the percentiles measure it, not the service`;
    case 'machine':
      return `the machine was busy with other work (machine CPU peak ${pct(s?.machinePeakPct)} while the load generator used ${pct(s?.generatorPeakPct)}, limit ${s?.limitPct} %): the percentiles may measure that contention, not the service`;
    default:
      return null;
  }
}
