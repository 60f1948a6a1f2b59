import { describe, expect, it } from 'vitest';
import { checkPhase, describePhases, phaseMs, phaseValues } from '../../qa/src/phases.js';
import { renderHtml } from '../../qa/src/reporter/html.js';
import { buildSummary, type CollectedTest } from '../../qa/src/reporter/summary.js';
import type { CallTurn, VoiceCallEvidence } from '../../qa/src/types.js';

const turn = (id: number, endpointingMs: number | null, serviceMs: number): CallTurn => ({
  id, input: 'voice', question: 'q', answer: 'a', messageId: `m${id}`, firstResponseMs: serviceMs, agentBuildMs: 0,
  interrupted: false, interruptedBy: null, falseInterruptions: 0, completedAt: '2026-01-01T00:00:00.000Z',
  perceivedLatencyMs: endpointingMs === null ? null : endpointingMs + serviceMs + 60,
  timing: { speechEndAt: endpointingMs === null ? null : 1000, endpointingMs, serviceMs, networkMs: endpointingMs === null ? null : 5, bufferingMs: 40, playbackMs: 15 },
});

const evidence = (turns: CallTurn[]): VoiceCallEvidence => ({
  kind: 'kb-voice-qa/call', version: 1, call: 1, turns, audio: [], quality: null,
  report: { sessionId: 's', aiId: 'r', turns, usage: null, cost: null, audio: [], quality: null, errors: {}, interruptions: { byCaller: 0, byApp: 0, false: 0 } },
  latency: { firstResponseMs: turns.map((t) => t.firstResponseMs!), perceivedLatencyMs: turns.flatMap((t) => (t.perceivedLatencyMs === null ? [] : [t.perceivedLatencyMs])) },
});

describe("kb-voice-qa: Turn.timing's phases", () => {
  it('reads each phase (null when not measured or from a page whose kb-voice has no timing) and refuses unknown phase names', () => {
    const t = turn(1, 620, 50);
    expect(phaseMs(t, 'endpointing')).toBe(620);
    expect(phaseMs(turn(2, null, 50), 'network')).toBeNull();
    const { timing: _t, ...old } = t;
    expect(phaseMs(old as CallTurn, 'service')).toBeNull();
    expect(describePhases(t)).toBe('endpointing 620 ms · service 50 ms · network 5 ms · buffering 40 ms · playback 15 ms');
    expect(() => checkPhase('jitter', 'toRespondWithin(ms, { phase })')).toThrow(/phase is one of endpointing, service, network, buffering, playback/);
    expect(checkPhase('buffering', 'x')).toBe('buffering');
    expect(phaseValues([t, turn(2, null, 70)])).toEqual({ endpointing: [620], service: [50, 70], network: [5], buffering: [40, 40], playback: [15, 15] });
  });

  it('summary.json has every phase percentiles overall; the page draws one waterfall bar per turn and the phases per test', () => {
    const tests: CollectedTest[] = [{ test: 'a', status: 'passed', expected: true, file: 'a.spec.ts', errors: [], calls: [{ evidence: evidence([turn(1, 600, 40), turn(2, 700, 60)]), audio: [] }] }];
    const summary = buildSummary(tests);
    expect(summary.overall.phasesMs.endpointing).toEqual({ p50: 600, p95: 700, p99: 700 });
    expect(summary.overall.phasesMs.service.p50).toBe(40);
    const html = renderHtml(summary, tests);
    expect(html.match(/class="waterfall"/g)).toHaveLength(2);
    expect(html).toContain('title="endpointing 600 ms"');
    expect(html).toContain('phases p50 / p95 (ms)</span> endpointing 600 / 700');
  });
});
