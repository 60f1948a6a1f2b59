import { describe, expect, it } from 'vitest';
import { checkCutBy, cutBy, cutMark, cutProblem, judgeCut } from '../../qa/src/cut.js';
import { renderHtml } from '../../qa/src/reporter/html.js';
import { buildSummary, type CollectedTest } from '../../qa/src/reporter/summary.js';
import type { CallTurn, VoiceCallEvidence } from '../../qa/src/types.js';

const ANSWER = 'Yes, but citric acid works better. Rinse twice.';
const turn = (over: Partial<CallTurn> = {}): CallTurn => ({
  id: 1, input: 'text', question: 'Can I descale with vinegar?', answer: ANSWER, messageId: 'm1', firstResponseMs: 300, agentBuildMs: 0,
  interrupted: false, interruptedBy: null, falseInterruptions: 0, completedAt: '2026-01-01T00:00:00.000Z', perceivedLatencyMs: null,
  timing: { speechEndAt: null, endpointingMs: null, serviceMs: 300, networkMs: null, bufferingMs: null, playbackMs: null },
  ...over,
});
const cutByCaller = turn({ interrupted: true, interruptedBy: 'caller' });

describe('kb-voice-qa: cut answers', () => {
  it('toAnswer has no problem with an answer heard whole, even after false interruptions', () => {
    expect(cutProblem(turn(), { ms: 4200, text: ANSWER })).toBeUndefined();
    expect(cutProblem(turn({ falseInterruptions: 2 }), { ms: 4200, text: ANSWER })).toBeUndefined();
  });

  it('a cut answer is a problem that says after how long, by whom, how far it got and what to expect instead', () => {
    expect(cutProblem(cutByCaller, { ms: 1210, text: 'Yes, but' })).toBe(
      'the answer was cut after 1210 ms by the caller: the caller did not hear it whole (it got as far as "Yes, but"); ' +
        'expect(call).toBeInterrupted() if the test expects that',
    );
    expect(cutProblem(turn({ interrupted: true, interruptedBy: 'app' }), { ms: 0, text: '' })).toMatch(/^the answer was cut after 0 ms by the app: .*none of its words were spoken/);
    // A page whose kb-voice predates interruptedBy: still a cut, by someone.
    const { interruptedBy: _, ...old } = cutByCaller;
    expect(cutBy(old as CallTurn)).toBe('unknown');
    expect(cutProblem(old as CallTurn, { ms: null, text: 'Yes' })).toMatch(/^the answer was cut by the caller or the app \(this kb-voice does not say which\)/);
  });

  it('toBeInterrupted passes on a cut answer (by whom when asked) and fails on one heard whole', () => {
    expect(judgeCut(cutByCaller, { ms: 800, text: 'Yes' }, undefined)).toEqual({ pass: true, received: 'the answer was cut after 800 ms by the caller' });
    expect(judgeCut(cutByCaller, { ms: 800, text: 'Yes' }, 'caller').pass).toBe(true);
    expect(judgeCut(cutByCaller, { ms: 800, text: 'Yes' }, 'app')).toEqual({ pass: false, received: 'the answer was cut after 800 ms by the caller' });
    expect(judgeCut(turn({ falseInterruptions: 1 }), { ms: 4000, text: ANSWER }, undefined)).toEqual({
      pass: false, received: 'the answer was heard whole, not cut; 1 false interruption (paused, then resumed)',
    });
    const { interruptedBy: _, ...old } = cutByCaller;
    expect(judgeCut(old as CallTurn, { ms: null, text: '' }, undefined).pass).toBe(true);
    expect(judgeCut(old as CallTurn, { ms: null, text: '' }, 'caller').pass).toBe(false);
  });

  it("toBeInterrupted's by is 'caller' or 'app'", () => {
    expect(checkCutBy(undefined)).toBeUndefined();
    expect(checkCutBy('app')).toBe('app');
    expect(() => checkCutBy('noise')).toThrow(/by is 'caller' or 'app', got "noise"/);
  });

  it("the reporter marks cut answers and false interruptions, and strikes what the caller did not hear", () => {
    expect(cutMark(turn(), 4000)).toBe('');
    expect(cutMark(cutByCaller, 1210)).toBe('cut by caller after 1210 ms');
    expect(cutMark(turn({ interrupted: true, interruptedBy: 'app', falseInterruptions: 2 }), undefined)).toBe('cut by app · 2 false interruptions');
    const turns = [cutByCaller, turn({ id: 2, messageId: 'm2', falseInterruptions: 1 })];
    const evidence: VoiceCallEvidence = {
      kind: 'kb-voice-qa/call', version: 1, call: 1, turns, audio: [], quality: null,
      report: { sessionId: 's', aiId: 'r', turns, usage: null, cost: null, audio: [], quality: null, errors: {}, interruptions: { byCaller: 1, byApp: 0, false: 1 } },
      latency: { firstResponseMs: [300, 300], perceivedLatencyMs: [] },
      heard: [{ messageId: 'm1', turnId: 1, ms: 1210, text: 'Yes, but' }, { messageId: 'm2', turnId: 2, ms: 4000, text: ANSWER }],
    };
    const tests: CollectedTest[] = [{ test: 't', status: 'passed', expected: true, file: 'a.spec.ts', errors: [], calls: [{ evidence, audio: [] }] }];
    const summary = buildSummary(tests);
    expect(summary.overall.interruptions).toEqual({ byCaller: 1, byApp: 0, false: 1 });
    const html = renderHtml(summary, tests);
    expect(html).toContain('cut by caller after 1210 ms');
    expect(html).toContain('Yes, but<s class="unheard" title="not heard: cut"> citric acid works better. Rinse twice.</s>');
    expect(html).toContain('1 false interruption');
    expect(html).toContain('Answers cut: 1 by the caller · 0 by the app · 1 false interruptions');
  });
});
