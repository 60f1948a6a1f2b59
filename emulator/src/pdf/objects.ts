import { inflateSync } from 'node:zlib';

/**
 * A small reader for the object layer of PDF files: enough to walk the page tree, read fonts and
 * content streams of simple (unencrypted, optionally Flate-compressed) documents. It reads objects
 * by scanning for `n g obj` instead of trusting the xref table, which also copes with files whose
 * offsets are slightly off.
 */

export type PdfValue =
  | number
  | boolean
  | null
  | PdfName
  | PdfString
  | PdfRef
  | PdfValue[]
  | PdfDict;

export class PdfName {
  constructor(readonly name: string) {}
}
export class PdfString {
  constructor(readonly bytes: Uint8Array) {}
  /** Single-byte decoding (the simple fonts this reader supports). */
  text(): string {
    return String.fromCharCode(...this.bytes);
  }
}
export class PdfRef {
  constructor(readonly num: number, readonly gen: number) {}
}
/** Operator keyword inside a content stream (`Tj`, `BT`, ...). */
export class PdfOp {
  constructor(readonly op: string) {}
}
export type PdfDict = Map<string, PdfValue>;

/** Thrown when the bytes are not a PDF this reader understands. */
export class PdfFormatError extends Error {
  readonly code = 'pdf_format';
  constructor(message: string) {
    super(message);
    this.name = 'PdfFormatError';
  }
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITER = new Set([...'()<>[]{}/%'].map((c) => c.charCodeAt(0)));

/** Tokenizer + parser of PDF values over a byte array. */
export class Lexer {
  pos: number;
  constructor(readonly bytes: Uint8Array, start = 0) {
    this.pos = start;
  }

  private skipSpace(): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (WHITESPACE.has(c)) this.pos++;
      else if (c === 0x25 /* % */) while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      else break;
    }
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.bytes.length;
  }

  private regular(): string {
    const start = this.pos;
    const b = this.bytes;
    while (this.pos < b.length && !WHITESPACE.has(b[this.pos]!) && !DELIMITER.has(b[this.pos]!)) this.pos++;
    return String.fromCharCode(...b.subarray(start, this.pos));
  }

  /** Reads one value; in content streams a bare keyword comes back as a {@link PdfOp}. */
  next(): PdfValue | PdfOp | ']' | '>>' {
    this.skipSpace();
    const b = this.bytes;
    const c = b[this.pos];
    if (c === undefined) throw new PdfFormatError('unexpected end of data');
    const ch = String.fromCharCode(c);
    if (ch === '/') {
      this.pos++;
      return new PdfName(this.regular().replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
    }
    if (ch === '(') return this.literalString();
    if (ch === '<' && b[this.pos + 1] === 0x3c) {
      this.pos += 2;
      const dict: PdfDict = new Map();
      for (;;) {
        const key = this.next();
        if (key === '>>') return dict;
        if (!(key instanceof PdfName)) throw new PdfFormatError('dictionary key is not a name');
        dict.set(key.name, this.value());
      }
    }
    if (ch === '<') return this.hexString();
    if (ch === '>' && b[this.pos + 1] === 0x3e) {
      this.pos += 2;
      return '>>';
    }
    if (ch === '[') {
      this.pos++;
      const arr: PdfValue[] = [];
      for (;;) {
        const v = this.next();
        if (v === ']') return arr;
        if (v === '>>' || v instanceof PdfOp) throw new PdfFormatError('unexpected token in array');
        arr.push(v);
      }
    }
    if (ch === ']') {
      this.pos++;
      return ']';
    }
    if (ch === '{' || ch === '}' || ch === ')' || ch === '>') {
      this.pos++;
      return new PdfOp(ch);
    }
    const word = this.regular();
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
      // `n g R` is a reference: look ahead without consuming when it is not one.
      const save = this.pos;
      if (/^\d+$/.test(word)) {
        this.skipSpace();
        const gen = this.regular();
        this.skipSpace();
        if (/^\d+$/.test(gen) && this.bytes[this.pos] === 0x52 /* R */ && this.isBoundary(this.pos + 1)) {
          this.pos++;
          return new PdfRef(Number(word), Number(gen));
        }
        this.pos = save;
      }
      return Number(word);
    }
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    if (word === '') throw new PdfFormatError(`unexpected byte 0x${c.toString(16)}`);
    return new PdfOp(word);
  }

  private isBoundary(i: number): boolean {
    const c = this.bytes[i];
    return c === undefined || WHITESPACE.has(c) || DELIMITER.has(c);
  }

  /** Reads a value that must not be a bare operator or closing token. */
  value(): PdfValue {
    const v = this.next();
    if (v === ']' || v === '>>' || v instanceof PdfOp) throw new PdfFormatError('expected a value');
    return v;
  }

  private literalString(): PdfString {
    const b = this.bytes;
    this.pos++;
    const out: number[] = [];
    let depth = 1;
    while (this.pos < b.length) {
      const c = b[this.pos++]!;
      if (c === 0x5c /* \ */) {
        const n = b[this.pos++];
        if (n === undefined) break;
        const map: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
        if (map[n] !== undefined) out.push(map[n]);
        else if (n >= 0x30 && n <= 0x37) {
          let oct = String.fromCharCode(n);
          while (oct.length < 3 && b[this.pos]! >= 0x30 && b[this.pos]! <= 0x37) oct += String.fromCharCode(b[this.pos++]!);
          out.push(parseInt(oct, 8) & 0xff);
        } else if (n === 0x0d) {
          if (b[this.pos] === 0x0a) this.pos++;
        } else if (n !== 0x0a) out.push(n);
        continue;
      }
      if (c === 0x28) depth++;
      if (c === 0x29 && --depth === 0) break;
      out.push(c);
    }
    return new PdfString(Uint8Array.from(out));
  }

  private hexString(): PdfString {
    const end = this.bytes.indexOf(0x3e, this.pos);
    if (end < 0) throw new PdfFormatError('unterminated hex string');
    let hex = String.fromCharCode(...this.bytes.subarray(this.pos + 1, end)).replace(/\s+/g, '');
    this.pos = end + 1;
    if (hex.length % 2) hex += '0';
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    return new PdfString(out);
  }
}

interface RawObject {
  value: PdfValue;
  stream?: Uint8Array;
}

/** A parsed PDF document: its objects by number, and the page tree in order. */
export class PdfDocument {
  readonly #objects = new Map<number, RawObject>();

  constructor(readonly bytes: Uint8Array) {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (!text.startsWith('%PDF-')) throw new PdfFormatError('not a PDF file (no %PDF- header)');
    const header = /(\d+)\s+(\d+)\s+obj\b/g;
    for (const m of text.matchAll(header)) {
      const num = Number(m[1]);
      const lexer = new Lexer(bytes, m.index + m[0].length);
      let value: PdfValue;
      try {
        value = lexer.value();
      } catch {
        continue;
      }
      const raw: RawObject = { value };
      const after = text.slice(lexer.pos, lexer.pos + 20);
      const sm = /^\s*stream\r?\n/.exec(after);
      if (sm && value instanceof Map) {
        const start = lexer.pos + sm[0].length;
        let length = this.#lengthOf(value.get('Length'));
        if (length === undefined || start + length > bytes.length) {
          length = text.indexOf('endstream', start) - start;
          if (length < 0) throw new PdfFormatError(`object ${num}: stream without endstream`);
        }
        raw.stream = bytes.subarray(start, start + length);
      }
      // Later definitions win (incremental updates append new versions).
      this.#objects.set(num, raw);
    }
    if (this.#objects.size === 0) throw new PdfFormatError('no objects found');
  }

  #lengthOf(v: PdfValue | undefined): number | undefined {
    if (typeof v === 'number') return v;
    // An indirect Length may not be parsed yet; fall back to scanning for endstream.
    if (v instanceof PdfRef) {
      const target = this.#objects.get(v.num)?.value;
      return typeof target === 'number' ? target : undefined;
    }
    return undefined;
  }

  /** Follows a reference (recursively); other values pass through. */
  resolve(v: PdfValue | undefined): PdfValue | undefined {
    let cur = v;
    for (let i = 0; i < 32 && cur instanceof PdfRef; i++) cur = this.#objects.get(cur.num)?.value;
    return cur;
  }

  dict(v: PdfValue | undefined): PdfDict | undefined {
    const r = this.resolve(v);
    return r instanceof Map ? r : undefined;
  }

  /** Decoded bytes of a stream object (FlateDecode or no filter). */
  streamOf(ref: PdfValue | undefined): Uint8Array {
    if (!(ref instanceof PdfRef)) throw new PdfFormatError('stream is not an indirect object');
    const raw = this.#objects.get(ref.num);
    if (!raw?.stream || !(raw.value instanceof Map)) throw new PdfFormatError(`object ${ref.num} is not a stream`);
    const filter = this.resolve(raw.value.get('Filter'));
    const filters = Array.isArray(filter) ? filter : filter === undefined || filter === null ? [] : [filter];
    let data = raw.stream;
    for (const f of filters) {
      if (f instanceof PdfName && f.name === 'FlateDecode') data = new Uint8Array(inflateSync(data));
      else throw new PdfFormatError(`unsupported stream filter ${f instanceof PdfName ? f.name : String(f)}`);
    }
    return data;
  }

  /** Page dictionaries in document order, with inherited attributes (MediaBox, Resources) applied. */
  pages(): PdfDict[] {
    const catalog = [...this.#objects.values()].map((o) => o.value).find((v) => v instanceof Map && nameOf(v.get('Type')) === 'Catalog');
    const root = catalog instanceof Map ? this.dict(catalog.get('Pages')) : undefined;
    if (!root) throw new PdfFormatError('no page tree');
    const out: PdfDict[] = [];
    const walk = (node: PdfDict, inherited: PdfDict, depth: number) => {
      if (depth > 64) throw new PdfFormatError('page tree too deep');
      const merged: PdfDict = new Map(inherited);
      for (const key of ['MediaBox', 'Resources']) if (node.has(key)) merged.set(key, node.get(key)!);
      if (nameOf(node.get('Type')) === 'Pages') {
        const kids = this.resolve(node.get('Kids'));
        if (Array.isArray(kids)) for (const kid of kids) {
          const d = this.dict(kid);
          if (d) walk(d, merged, depth + 1);
        }
      } else {
        const page: PdfDict = new Map(node);
        for (const [k, v] of merged) if (!page.has(k)) page.set(k, v);
        out.push(page);
      }
    };
    walk(root, new Map(), 0);
    return out;
  }
}

export function nameOf(v: PdfValue | undefined): string | undefined {
  return v instanceof PdfName ? v.name : undefined;
}
