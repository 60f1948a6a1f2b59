import { describe, expect, it } from 'vitest';
import type { LoadCallRecord } from '../../qa/src/load/call-log.js';
import { phaseMetricName, turnSamples } from '../../qa/src/load/metrics.js';
import { renderLoadHtml } from '../../qa/src/reporter/load-html.js';
import { buildLoadReport, generatorSaturated, parseArtilleryReport, parseCallRecords } from '../../qa/src/reporter/load-model.js';
import type { CallTurn } from '../../qa/src/types.js';

const stat = (p50: number, p95: number, max = p95, count = 4) => ({ min: p50, max, count, mean: p50, p50, median: p50, p95, p99: max });
const period = (at: number, cpu: number, extra: Record<string, unknown> = {}) => ({
  period: at, firstMetricAt: at, counters: { 'voice.turns': 4, ...(extra.counters as object) },
  summaries: { 'voice.first_response_ms': stat(40, 60), 'voice.generator_cpu_pct': stat(cpu, cpu), 'voice.machine_cpu_pct': stat(cpu, cpu), 'voice.active_calls': stat(3, 4) },
});
const artillery = (cpus: number[]) => ({
  aggregate: {
    firstMetricAt: 1_790_000_000_000,
    counters: { 'voice.calls': 4, 'voice.turns': 8, 'voice.turns_failed': 1, 'vusers.failed': 1, 'vusers.completed': 3, 'errors.voice_answer_mismatch': 1, 'errors.voice_turn_timeout': 2, 'http.requests': 0 },
    summaries: { 'voice.first_response_ms': stat(41, 55), 'voice.phase.asr_ms': stat(10, 20), 'vusers.session_length': stat(1, 2) },
  },
  intermediate: cpus.map((c, i) => period(1_790_000_000_000 + i * 10_000, c)),
});
const call = (user: string, status: string, firstResponseMs: number): LoadCallRecord => ({
  kind: 'kb-voice-qa/load-call', version: 1, caller: 'node', scenario: 'warranty', userIdentifier: user, startedAt: '2026-11-26T00:00:00.000Z',
  durationMs: 1, sessionId: `s-${user}`, connectMs: 100, status, error: status === 'ok' ? null : 'expected /x/', mos: 4.3,
  turns: [{ id: 1, input: 'voice', question: 'How long is the warranty?', answer: 'Two years.', firstResponseMs, perceivedLatencyMs: null, interrupted: false, agentBuildMs: 0 }],
  audio: [{ segment: 0, url: 'http://127.0.0.1:1/audio/0.wav' }],
});

describe('the load report (Artillery JSON)', () => {
  it('gives voice.* figures, errors by code (most first), the timeline and the worst calls (failed first, then slowest)', () => {
    const calls = [call('a', 'ok', 30), call('b', 'voice_answer_mismatch', 10), call('c', 'ok', 90)];
    const report = buildLoadReport(parseArtilleryReport(artillery([20, 30])), calls);
    expect(report.metrics['voice.first_response_ms']).toEqual({ p50: 41, p95: 55, p99: 55, max: 55, count: 4 });
    expect(report.metrics['vusers.session_length']).toBeUndefined();
    expect(report.counters['http.requests']).toBeUndefined();
    expect(report.errors).toEqual([{ code: 'voice_turn_timeout', count: 2 }, { code: 'voice_answer_mismatch', count: 1 }]);
    expect(report.timeline.map((p) => p.activeCalls)).toEqual([4, 4]);
    expect(report.peakActiveCalls).toBe(4);
    expect(report.worstCalls.map((c) => c.userIdentifier)).toEqual(['b', 'c', 'a']);
    expect(report.startedAt).toBe(new Date(1_790_000_000_000).toISOString());
    expect(generatorSaturated(report)).toBe(false);
    const html = renderLoadHtml(report, 'out.json');
    expect(html).toContain('the percentiles are the service');
    expect(html).toContain('voice_turn_timeout');
    expect(html).toContain('asr');
  });

  it('says the percentiles measure the generator when its CPU went over the limit in a period', () => {
    const report = buildLoadReport(parseArtilleryReport(artillery([20, 97])));
    expect(report.saturation).toMatchObject({ saturatedPeriods: 1, periods: 2, generatorPeakPct: 97 });
    expect(generatorSaturated(report)).toBe(true);
    expect(renderLoadHtml(report, 'out.json')).toContain('The load generator was saturated (it used 97 % of the machine at its peak');
  });

  it('rejects what is not an Artillery report, and skips calls-file lines that are not call records', () => {
    expect(() => parseArtilleryReport({ intermediate: [] })).toThrow(/not an Artillery JSON report/);
    expect(parseCallRecords(`${JSON.stringify(call('a', 'ok', 1))}\n{"cut":\n\n{"kind":"other"}\n`)).toHaveLength(1);
  });
});

describe('turn metrics', () => {
  const turn: CallTurn = { id: 1, input: 'voice', question: 'q', answer: 'a', messageId: 'm', firstResponseMs: 40, perceivedLatencyMs: null, agentBuildMs: 0, interrupted: true, interruptedBy: 'caller', falseInterruptions: 0, completedAt: '', timing: { speechEndAt: null, endpointingMs: null, serviceMs: null, networkMs: null, bufferingMs: null, playbackMs: null } };
  it('emit the caller’s own perceived latency where the page did not measure it, and a cut answer', () => {
    const samples = turnSamples(turn, 700);
    expect(samples).toContainEqual({ kind: 'histogram', name: 'voice.perceived_latency_ms', value: 700 });
    expect(samples).toContainEqual({ kind: 'counter', name: 'voice.answers_cut', value: 1 });
    expect(samples.some((s) => s.name.startsWith('voice.phase.'))).toBe(false);
  });
  it('emit one voice.phase.<phase>_ms histogram per measured phase of Turn.timing (not its speechEndAt timestamp)', () => {
    const timed: CallTurn = { ...turn, timing: { speechEndAt: 1000, endpointingMs: 120, serviceMs: 300, networkMs: 15, bufferingMs: null, playbackMs: null } };
    const phases = turnSamples(timed).filter((s) => s.name.startsWith('voice.phase.'));
    expect(phases).toEqual([
      { kind: 'histogram', name: 'voice.phase.endpointing_ms', value: 120 },
      { kind: 'histogram', name: 'voice.phase.service_ms', value: 300 },
      { kind: 'histogram', name: 'voice.phase.network_ms', value: 15 },
    ]);
    expect(phaseMetricName('endpointing')).toBe('voice.phase.endpointing_ms');
  });
});

// issue 46: the report said "the load generator was saturated" when the generator used 25 % and
// other work the rest of the machine (92 %); the calls file had perceivedLatencyMs: null on every
// Node voice turn while the metric had samples; the latency chart drew nothing when a run's
// latencies all landed in one period.
describe('the load report says which was saturated, and shows every measured point', () => {
  const busyMachine = () => {
    const report = artillery([0]);
    report.intermediate = [{ ...period(1_790_000_000_000, 0), summaries: { ...period(1_790_000_000_000, 0).summaries, 'voice.generator_cpu_pct': stat(25, 25), 'voice.machine_cpu_pct': stat(92, 92) } }];
    return buildLoadReport(parseArtilleryReport(report));
  };

  it('names the machine, not the generator, when other work used the CPU', async () => {
    const report = busyMachine();
    const { saturationCause, saturationSentence } = await import('../../qa/src/reporter/load-model.js');
    expect(saturationCause(report)).toBe('machine');
    expect(saturationSentence(report)).toContain('the machine was busy with other work (machine CPU peak 92 % while the load generator used 25 %');
    const html = renderLoadHtml(report, 'out.json');
    expect(html).not.toContain('load generator was saturated');
    expect(html).toContain('The machine was busy with other work');
  });

  it('names the generator when it used the CPU itself', async () => {
    const { saturationCause } = await import('../../qa/src/reporter/load-model.js');
    expect(saturationCause(buildLoadReport(parseArtilleryReport(artillery([20, 97]))))).toBe('generator');
  });

  it('draws a latency point even when the run measured latencies in one period only', () => {
    const report = artillery([10, 10, 10]);
    report.intermediate = report.intermediate.map((p, i) => (i === 2 ? p : { ...p, summaries: { 'voice.generator_cpu_pct': stat(10, 10) } })) as typeof report.intermediate;
    const html = renderLoadHtml(buildLoadReport(parseArtilleryReport(report)), 'out.json');
    const latencyChart = html.slice(html.indexOf('Latency (ms)'), html.indexOf('Concurrency and CPU'));
    expect(latencyChart).toMatch(/<circle class="s1"/);
  });
});
