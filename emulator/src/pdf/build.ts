import { HELVETICA_FIRST_CHAR, HELVETICA_WIDTH_LIST } from './metrics.js';

/** One line of text to place on a page: baseline at (`x`, `y`) in PDF points, origin bottom-left. */
export interface PdfLine {
  text: string;
  x: number;
  y: number;
  size: number;
  /** How the line is positioned in the content stream (both are read back the same way). */
  positioning?: 'Td' | 'Tm';
}

export interface PdfPageSpec {
  lines: PdfLine[];
  /** Default US Letter, 612 × 792 points. */
  width?: number;
  height?: number;
}

/** Escapes a string for a PDF literal string; only printable ASCII is supported. */
function literal(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new RangeError('buildPdf supports printable ASCII text only');
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/**
 * Writes a small, uncompressed PDF 1.4 document: one Helvetica font (with explicit `/Widths`, so
 * any reader computes the same glyph positions), one content stream per page, and a correct xref
 * table. Used for the emulator's seeded PDF file and test fixtures; text is placed with
 * `BT /F1 size Tf x y Td (text) Tj ET` (or `Tm`).
 */
export function buildPdf(pages: PdfPageSpec[]): Uint8Array {
  if (pages.length === 0) throw new RangeError('a PDF needs at least one page');
  const objects: string[] = []; // objects[i] is object number i + 1
  const add = (body: string) => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // page tree, filled once the page numbers are known
  add(`<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /FirstChar ${HELVETICA_FIRST_CHAR} /LastChar ${HELVETICA_FIRST_CHAR + HELVETICA_WIDTH_LIST.length - 1} /Widths [${HELVETICA_WIDTH_LIST.join(' ')}] >>`);
  const kids: number[] = [];
  for (const page of pages) {
    const ops = page.lines.map((l) => {
      const place = l.positioning === 'Tm' ? `1 0 0 1 ${l.x} ${l.y} Tm` : `${l.x} ${l.y} Td`;
      return `BT /F1 ${l.size} Tf ${place} ${literal(l.text)} Tj ET`;
    });
    const content = ops.join('\n') + '\n';
    add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`);
    const contentNum = objects.length;
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width ?? 612} ${page.height ?? 792}] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentNum} 0 R >>`);
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;

  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
