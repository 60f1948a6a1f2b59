import { HELVETICA_WIDTHS } from './metrics.js';
import { Lexer, nameOf, PdfDocument, PdfFormatError, PdfOp, PdfString, type PdfDict, type PdfValue } from './objects.js';

/**
 * Text extraction with positions from page content streams. It interprets the text operators
 * (BT/ET, Tf, Td, TD, Tm, T*, TL, Tc, Tw, Tz, Tj, TJ, ', ") and the graphics state operators that move
 * text (q/Q, cm), so each shown string comes back with its glyph positions in page space.
 */

/** One shown string with per-character advances, in PDF user space (origin bottom-left). */
export interface TextRun {
  text: string;
  /** Left edge of each character, and the right edge of the last one (length = text.length + 1). */
  edges: number[];
  /** Baseline y. */
  y: number;
  /** Font size in user space (after matrices). */
  size: number;
}

export interface PageText {
  /** 1-based page number. */
  page: number;
  width: number;
  height: number;
  runs: TextRun[];
}

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
/** m1 × m2 in PDF's row-vector convention. */
const mul = (m1: Matrix, m2: Matrix): Matrix => [
  m1[0] * m2[0] + m1[1] * m2[2],
  m1[0] * m2[1] + m1[1] * m2[3],
  m1[2] * m2[0] + m1[3] * m2[2],
  m1[2] * m2[1] + m1[3] * m2[3],
  m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
  m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
];

interface Font {
  /** Glyph width in 1/1000 em of a character code. */
  width(code: number): number;
}

function fontFrom(doc: PdfDocument, dict: PdfDict | undefined): Font {
  const widths = doc.resolve(dict?.get('Widths'));
  const first = doc.resolve(dict?.get('FirstChar'));
  if (Array.isArray(widths) && typeof first === 'number') {
    const nums = widths.map((w) => doc.resolve(w));
    return { width: (code) => {
      const w = nums[code - first];
      return typeof w === 'number' ? w : HELVETICA_WIDTHS[code] ?? 500;
    } };
  }
  // Standard 14 fonts carry no widths: Helvetica's metrics are a fair stand-in for all of them.
  return { width: (code) => HELVETICA_WIDTHS[code] ?? 500 };
}

const num = (v: unknown): number => {
  if (typeof v !== 'number') throw new PdfFormatError('expected a number operand');
  return v;
};

/** Extracts the text runs of every page of `bytes`. */
export function extractText(bytes: Uint8Array): PageText[] {
  const doc = new PdfDocument(bytes);
  return doc.pages().map((page, i) => pageText(doc, page, i + 1));
}

function pageText(doc: PdfDocument, page: PdfDict, pageNumber: number): PageText {
  const box = doc.resolve(page.get('MediaBox'));
  const [x0, y0, x1, y1] = Array.isArray(box) && box.length === 4 ? box.map((v) => num(doc.resolve(v))) as [number, number, number, number] : [0, 0, 612, 792];
  const fonts = doc.dict(doc.dict(page.get('Resources'))?.get('Font'));
  const contents = page.get('Contents');
  const resolved = doc.resolve(contents);
  const parts = Array.isArray(resolved) ? resolved : contents === undefined ? [] : [contents];
  const chunks = parts.map((ref) => doc.streamOf(ref));
  const total = chunks.reduce((n, c) => n + c.length + 1, 0);
  const data = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    data.set(c, off);
    data[off + c.length] = 0x0a;
    off += c.length + 1;
  }

  const runs: TextRun[] = [];
  let ctm: Matrix = [1, 0, 0, 1, -x0, -y0];
  const stack: Matrix[] = [];
  let tm: Matrix = IDENTITY;
  let tlm: Matrix = IDENTITY;
  let font: Font = fontFrom(doc, undefined);
  let size = 12;
  let leading = 0;
  let charSpacing = 0;
  let wordSpacing = 0;
  let scale = 1;
  const operands: (PdfValue)[] = [];

  const nextLine = (tx: number, ty: number) => {
    tlm = mul([1, 0, 0, 1, tx, ty], tlm);
    tm = tlm;
  };
  const show = (items: PdfValue[]) => {
    let text = '';
    const edges: number[] = [];
    const origin = mul(tm, ctm);
    const userSize = size * Math.hypot(origin[2], origin[3]);
    for (const item of items) {
      if (typeof item === 'number') {
        // TJ adjustment: thousandths of an em, subtracted from the advance.
        tm = mul([1, 0, 0, 1, (-item / 1000) * size * scale, 0], tm);
        continue;
      }
      if (!(item instanceof PdfString)) continue;
      for (const code of item.bytes) {
        edges.push(mul(tm, ctm)[4]);
        text += String.fromCharCode(code);
        const advance = ((font.width(code) / 1000) * size + charSpacing + (code === 32 ? wordSpacing : 0)) * scale;
        tm = mul([1, 0, 0, 1, advance, 0], tm);
      }
    }
    if (text === '') return;
    edges.push(mul(tm, ctm)[4]);
    runs.push({ text, edges, y: origin[5], size: userSize });
  };

  const lexer = new Lexer(data);
  while (!lexer.atEnd()) {
    const tok = lexer.next();
    if (!(tok instanceof PdfOp)) {
      if (tok !== ']' && tok !== '>>') operands.push(tok);
      continue;
    }
    const o = operands.splice(0);
    switch (tok.op) {
      case 'q': stack.push(ctm); break;
      case 'Q': ctm = stack.pop() ?? ctm; break;
      case 'cm': ctm = mul(o.map(num) as Matrix, ctm); break;
      case 'BT': tm = IDENTITY; tlm = IDENTITY; break;
      case 'Tf': {
        const name = nameOf(o[0]);
        font = fontFrom(doc, name ? doc.dict(fonts?.get(name)) : undefined);
        size = num(o[1]);
        break;
      }
      case 'Td': nextLine(num(o[0]), num(o[1])); break;
      case 'TD': leading = -num(o[1]); nextLine(num(o[0]), num(o[1])); break;
      case 'Tm': tlm = o.map(num) as Matrix; tm = tlm; break;
      case 'T*': nextLine(0, -leading); break;
      case 'TL': leading = num(o[0]); break;
      case 'Tc': charSpacing = num(o[0]); break;
      case 'Tw': wordSpacing = num(o[0]); break;
      case 'Tz': scale = num(o[0]) / 100; break;
      case 'Tj': show(o.slice(0, 1)); break;
      case 'TJ': show(Array.isArray(o[0]) ? o[0] : []); break;
      case "'": nextLine(0, -leading); show(o.slice(0, 1)); break;
      case '"': wordSpacing = num(o[0]); charSpacing = num(o[1]); nextLine(0, -leading); show(o.slice(2, 3)); break;
      default: break; // Path, colour and image operators do not move text.
    }
  }
  return { page: pageNumber, width: x1 - x0, height: y1 - y0, runs };
}
