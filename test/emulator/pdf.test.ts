import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildPdf, extractText, FIXTURE_IDS } from 'kb-voice-emulator';
import { highlight } from '../../emulator/src/pdf/highlight.js';
import { useEmulator } from '../helpers/emulator.js';

const sample = new Uint8Array(readFileSync(new URL('../fixtures/pdf/sample.pdf', import.meta.url)));

describe('PDF reading (content stream BT/Tf/Td/Tm/Tj)', () => {
  it('reads the committed sample: pages, sizes and text runs', () => {
    const pages = extractText(sample);
    expect(pages.map((p) => [p.page, p.width, p.height])).toEqual([[1, 612, 792], [2, 595, 842]]);
    expect(pages[0]!.runs.map((r) => [r.text, r.y, r.size])).toEqual([
      ['Hello PDF', 720, 24],
      ['The quick brown fox jumps over the lazy dog.', 680, 12],
    ]);
    expect(pages[1]!.runs[0]!.edges[0]).toBe(100);
  });

  it('boxes a phrase at its glyph positions (Helvetica widths, top-left origin)', () => {
    const [page1, page2] = extractText(sample);
    // "The quick " is 4613/1000 em and "brown fox" 4335/1000 em at 12 pt.
    expect(highlight(page1!, 'Brown  FOX')).toEqual([{ page: 1, x: 127.36, y: 102.4, width: 52.02, height: 12, text: 'brown fox' }]);
    // Across two lines: one box per line.
    const across = highlight(page1!, 'pdf the quick');
    expect(across.map((b) => b.text)).toEqual(['PDF', 'The quick']);
    expect(across[0]).toMatchObject({ y: round(792 - 720 - 0.8 * 24), height: 24 });
    // "Second " is 3669/1000 em and "page" 2224/1000 em at 14 pt, on a 842 pt high page.
    expect(highlight(page2!, 'page')).toEqual([{ page: 2, x: 151.37, y: 330.8, width: 31.14, height: 14, text: 'page' }]);
    expect(highlight(page1!, 'cat')).toEqual([]);
  });

  it('reads Flate-compressed streams, TJ kerning, cm and fonts without /Widths', () => {
    const content = Buffer.from('q 1 0 0 1 50 0 cm BT /F1 10 Tf 100 400 Td [(AB) -500 (C)] TJ ET Q');
    const stream = deflateSync(content);
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 300 500] >>',
      '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ];
    let pdf = Buffer.from('%PDF-1.7\n');
    objects.forEach((o, i) => (pdf = Buffer.concat([pdf, Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`)])));
    pdf = Buffer.concat([pdf, Buffer.from(`5 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from('\nendstream\nendobj\n%%EOF\n')]);
    const [page] = extractText(new Uint8Array(pdf));
    expect(page!.height).toBe(500); // inherited MediaBox
    expect(page!.runs[0]!.text).toBe('ABC');
    // A and B are 667/1000 em; the -500 adjustment moves C right by 5 pt.
    expect(highlight(page!, 'C')).toEqual([{ page: 1, x: 168.34, y: 92, width: 7.22, height: 10, text: 'C' }]);
  });

  it('rejects what is not a PDF', () => {
    expect(() => extractText(new TextEncoder().encode('hello'))).toThrow(/not a PDF/);
    expect(() => buildPdf([{ lines: [{ text: 'ß', x: 0, y: 0, size: 1 }] }])).toThrow(RangeError);
  });
});

const round = (n: number) => Math.round(n * 100) / 100;

describe('E9 /pdf/highlight', () => {
  const t = useEmulator();

  it('finds text on the given page of the stored manual (no key needed)', async () => {
    const out = await t.api.pdf.highlight({ file_id: FIXTURE_IDS.files.manualPdf, text: 'citric acid', page: 2 });
    expect(out.success).toBe(true);
    expect(out.positions).toHaveLength(1);
    const [box] = out.positions as { page: number; x: number; y: number; width: number; height: number; text: string }[];
    expect(box).toMatchObject({ page: 2, text: 'citric acid', height: 12, y: round(792 - 690 - 9.6) });
    expect(box!.x).toBeGreaterThan(72);
    const anon = await t.raw('POST', '/pdf/highlight', { key: null, body: { file_id: FIXTURE_IDS.files.manualPdf, text: 'MAX line', page: 1 } });
    expect(anon.status).toBe(200);
    expect((await anon.json()).success).toBe(true);
  });

  it('reports misses in the body: wrong page, missing text, not a PDF', async () => {
    const wrongPage = await t.api.pdf.highlight({ file_id: FIXTURE_IDS.files.manualPdf, text: 'citric acid', page: 1 });
    expect(wrongPage).toEqual({ success: false, positions: [], message: 'Text not found on page 1' });
    const outOfRange = await t.api.pdf.highlight({ file_id: FIXTURE_IDS.files.manualPdf, text: 'x', page: 9 });
    expect(outOfRange.message).toBe('Page 9 is out of range: the document has 2 pages');
    const notPdf = await t.api.pdf.highlight({ file_id: FIXTURE_IDS.files.faqEn, text: 'kettle', page: 1 });
    expect(notPdf.success).toBe(false);
  });

  it('answers 404 for an unknown file and 422 for bad input', async () => {
    expect((await t.raw('POST', '/pdf/highlight', { body: { file_id: 'nope', text: 'x', page: 1 } })).status).toBe(404);
    const bad = await t.raw('POST', '/pdf/highlight', { body: { text: '', page: 0 } });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'file_id'], ['body', 'text'], ['body', 'page']]);
    expect((await t.raw('POST', '/pdf/highlight', { body: { file_id: 'a', text: 'b', page: 1.5 } })).status).toBe(422);
  });
});
