import { describe, expect, it } from 'vitest';
import { segmentLabels } from '../../qa/src/evidence.js';
import { renderHtml } from '../../qa/src/reporter/html.js';
import { buildSummary, percentiles, type CollectedTest } from '../../qa/src/reporter/summary.js';
import type { CallTurn, VoiceCallEvidence } from '../../qa/src/types.js';

const turn = (id: number, answer: string, firstResponseMs: number | null, perceivedLatencyMs: number | null = null): CallTurn => ({
  id, input: 'text', question: `question ${id}`, answer, messageId: `m-${id}`, firstResponseMs, agentBuildMs: 0,
  interrupted: false, interruptedBy: null, falseInterruptions: 0, completedAt: '2026-01-01T00:00:00.000Z', perceivedLatencyMs,
  timing: { speechEndAt: null, endpointingMs: null, serviceMs: firstResponseMs, networkMs: null, bufferingMs: null, playbackMs: null },
});

function evidence(call: number, turns: CallTurn[]): VoiceCallEvidence {
  const pick = (f: (t: CallTurn) => number | null | undefined) => turns.map(f).filter((v): v is number => typeof v === 'number');
  return {
    kind: 'kb-voice-qa/call', version: 1, call, turns, audio: [], quality: null,
    report: { sessionId: `s-${call}`, aiId: 'robot', turns, usage: null, cost: null, audio: [], quality: null, errors: {}, interruptions: { byCaller: 0, byApp: 0, false: 0 } },
    latency: { firstResponseMs: pick((t) => t.firstResponseMs), perceivedLatencyMs: pick((t) => t.perceivedLatencyMs) },
  };
}

const collected = (test: string, status: string, calls: VoiceCallEvidence[], expected = status === 'passed'): CollectedTest => ({
  test, status, expected, file: 'a.spec.ts', errors: status === 'passed' ? [] : ['Error: expect(call).toAnswer(/x/)'],
  calls: calls.map((e) => ({ evidence: e, audio: [] })),
});

describe('percentiles', () => {
  it('are nearest-rank over the sorted values, null when there are none', () => {
    expect(percentiles([])).toEqual({ p50: null, p95: null, p99: null });
    expect(percentiles([300])).toEqual({ p50: 300, p95: 300, p99: 300 });
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentiles(hundred)).toEqual({ p50: 50, p95: 95, p99: 99 });
    expect(percentiles([10, 20, 30, 40])).toEqual({ p50: 20, p95: 40, p99: 40 });
  });
});

describe('summary.json', () => {
  it('has exactly the contract shape: calls [{ test, status, turns, report }] and overall percentiles', () => {
    const summary = buildSummary([
      collected('a.spec.ts › one', 'passed', [evidence(1, [turn(1, 'two-year warranty', 100, 180), turn(2, '980 yen', 300)])]),
      collected('a.spec.ts › two', 'failed', [evidence(1, [turn(1, 'no', null)])]),
    ]);
    expect(Object.keys(summary)).toEqual(['calls', 'overall']);
    expect(summary.calls.map((c) => Object.keys(c))).toEqual([['test', 'status', 'turns', 'report'], ['test', 'status', 'turns', 'report']]);
    expect(summary.calls.map((c) => [c.test, c.status, c.turns])).toEqual([['a.spec.ts › one', 'passed', 2], ['a.spec.ts › two', 'failed', 1]]);
    expect(summary.calls[0]!.report?.sessionId).toBe('s-1');
    expect(summary.overall).toEqual({
      calls: 2,
      turns: 3,
      // Unmeasured latencies (null) are left out, not counted as 0.
      firstResponseMs: { p50: 100, p95: 300, p99: 300 },
      perceivedLatencyMs: { p50: 180, p95: 180, p99: 180 },
      // Turn.timing's phases (additive): here only the service's was measured
      phasesMs: expect.objectContaining({ service: { p50: 100, p95: 300, p99: 300 }, endpointing: { p50: null, p95: null, p99: null } }),
      // report().interruptions summed (additive)
      interruptions: { byCaller: 0, byApp: 0, false: 0 },
    });
  });
});

describe('index.html', () => {
  it('escapes what was said and shows expected failures as such', () => {
    const html = renderHtml(
      buildSummary([collected('t', 'failed', [evidence(1, [turn(1, '<img src=x onerror=alert(1)>', 120)])], true)]),
      [collected('t', 'failed', [evidence(1, [turn(1, '<img src=x onerror=alert(1)>', 120)])], true)],
    );
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain('failed (expected)');
    expect(html).toContain('1/1 as expected');
  });
});

describe('index.html sources', () => {
  it('lists each answer\u2019s titled sources with their page, every value escaped', () => {
    const sources = [
      { title: '<script>alert(1)</script>', url: '"><img src=x onerror=alert(2)>', fileId: 'f1', raw: {} },
      { title: 'manual.pdf', page: 2, fileId: 'f2', raw: {} },
      { title: '', raw: 42 },
    ];
    const t = { ...turn(1, 'answer', 100), sources };
    const html = renderHtml(buildSummary([collected('t', 'passed', [evidence(1, [t])])]), [collected('t', 'passed', [evidence(1, [t])])]);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('manual.pdf p.2');
    expect(html.match(/<div class="src">/g)).toHaveLength(1);
  });
});

describe('audio labels', () => {
  const voice = (id: number): CallTurn => ({ ...turn(id, 'a', 10), input: 'voice' });
  it('name each segment question or answer of its turn: a spoken turn has both, a typed one an answer', () => {
    expect(segmentLabels([voice(1), turn(2, 'b', 10)], 3)).toEqual(['turn 1 · question', 'turn 1 · answer', 'turn 2 · answer']);
  });
  it('fall back to segment numbers when the segments do not line up with the turns', () => {
    expect(segmentLabels([voice(1)], 3)).toEqual(['segment 0', 'segment 1', 'segment 2']);
  });
  it('show on the page with the length, preloaded, and the call’s network and date', () => {
    const e = { ...evidence(1, [voice(1)]), audio: ['voice-call-1-0-turn-1-question.wav'], network: '4g', startedAt: '2026-11-26T10:00:00.000Z',
      segments: [{ name: 'voice-call-1-0-turn-1-question.wav', segment: 0, label: 'turn 1 · question', durationMs: 2100 }] };
    const t = { ...collected('t', 'passed', [e]), calls: [{ evidence: e, audio: [{ name: 'voice-call-1-0-turn-1-question.wav', href: 'audio/x.wav' }] }] };
    const html = renderHtml(buildSummary([t]), [t], { startedAt: '2026-11-26T10:00:00.000Z', environment: 'Node v20 · linux x64' });
    expect(html).toContain('<figcaption>turn 1 · question · 2.1 s</figcaption><audio controls preload="metadata"');
    expect(html).toContain('network 4g');
    expect(html).toContain('2026-11-26 10:00:00 UTC');
    expect(html).toContain('Node v20 · linux x64');
  });
});
