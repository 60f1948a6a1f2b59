import { describe, expect, it } from 'vitest';
import { toSource, toSources } from '../../../src/sources/index.js';

describe('toSources: reference values normalized (CONTRACT.md "Sources and ratings")', () => {
  it("maps the emulator's stored reference to a Source and keeps the raw value", () => {
    const raw = { id: 'f1:3', title: 'quick-start.pdf', url: 'https://example.com/q.pdf', dataset_id: 'd1', file_id: 'f1', content: 'Descale monthly.', score: 2.5, page: 2 };
    expect(toSources([raw])).toEqual([{ title: 'quick-start.pdf', url: 'https://example.com/q.pdf', fileId: 'f1', datasetId: 'd1', snippet: 'Descale monthly.', score: 2.5, page: 2, raw }]);
  });

  it('drops fields of the wrong type instead of failing', () => {
    const raw = { title: 'faq.md', url: 42, file_id: null, page: 0, score: 'high', content: ['x'] };
    expect(toSource(raw)).toEqual({ title: 'faq.md', raw });
    expect(toSource({ title: 'p', page: 1.5 }).page).toBeUndefined();
    expect(toSource({ title: 'p', score: Number.NaN }).score).toBeUndefined();
  });

  it('keeps unknown shapes as raw only (title empty), never an error', () => {
    for (const value of [7, 'text', null, [1, 2], { id: 'x' }, { title: '   ' }, { title: 5 }]) {
      expect(toSource(value)).toEqual({ title: '', raw: value });
    }
    expect(toSources({ refs: 1 })).toEqual([{ title: '', raw: { refs: 1 } }]);
    expect(toSources(null)).toEqual([]);
    expect(toSources(undefined)).toEqual([]);
    expect(toSources([])).toEqual([]);
  });

  it('keeps hostile titles, snippets and URLs as plain data (the widget renders them as text)', () => {
    const raw = { title: '<img src=x onerror=alert(1)>', url: 'javascript:alert(1)', content: '<script>alert(2)</script>' };
    expect(toSource(raw)).toEqual({ title: raw.title, url: raw.url, snippet: raw.content, raw });
  });
});
