// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { CallCheckResult } from '../../src/check/types.js';
import { renderCheck } from '../../src/widget/check-panel.js';

// Test my setup's result panel fills its test-call figures with the widget's one template filler
// (locale.ts fillTemplate): numbers formatted for the language, a missing figure as '?'.
describe('Test my setup panel: the test call figures', () => {
  const result = (connection: Record<string, unknown>): CallCheckResult => ({
    overall: 'warning',
    connection: { grade: 'warning', code: 'poor_connection', message: 'x', ...connection },
  }) as unknown as CallCheckResult;

  it('formats the figures for the language', () => {
    const panel = document.createElement('div');
    renderCheck(panel, result({ rttMs: 1234, jitterMs: 12, lossPct: 6.5, mos: 3.1 }), 'en');
    expect(panel.querySelector('[data-part="connection"]')!.textContent).toContain('Round trip 1,234 ms, jitter 12 ms, loss 6.5 %, quality 3.1 / 4.5.');
  });

  it('shows ? for a figure the check could not measure, and no figures without a MOS', () => {
    const panel = document.createElement('div');
    renderCheck(panel, result({ rttMs: null, jitterMs: 3, lossPct: 0, mos: 2 }), 'ja');
    expect(panel.querySelector('[data-part="connection"]')!.textContent).toContain('往復 ? ms、ジッター 3 ms、損失 0 %、品質 2 / 4.5');
    renderCheck(panel, result({ rttMs: 5, mos: null }), 'en');
    expect(panel.querySelector('[data-part="connection"]')!.textContent).not.toContain('Round trip');
  });
});
