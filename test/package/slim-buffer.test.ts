import { Buffer as NodeBuffer } from 'node:buffer';
import { beforeAll, describe, expect, it } from 'vitest';

// scripts/shims/buffer.js stands in for the `buffer` package inside the vendored simple-peer
// bundle. Every behaviour simple-peer, readable-stream, randombytes and safe-buffer rely on must
// match Node's Buffer exactly; this compares the two byte for byte.

type SlimBuffer = Uint8Array & {
  toString(encoding?: string, start?: number, end?: number): string;
  copy(target: Uint8Array, targetStart?: number, sourceStart?: number, sourceEnd?: number): number;
  equals(other: Uint8Array): boolean;
};
interface SlimBufferClass {
  prototype: SlimBuffer;
  from(value: string, encoding?: string): SlimBuffer;
  from(value: ArrayBuffer, offset?: number, length?: number): SlimBuffer;
  from(value: ArrayLike<number>): SlimBuffer;
  alloc(size: number, fill?: number): SlimBuffer;
  allocUnsafe(size: number): SlimBuffer;
  allocUnsafeSlow(size: number): SlimBuffer;
  isBuffer(value: unknown): boolean;
  isEncoding(value: unknown): boolean;
  byteLength(value: string | Uint8Array, encoding?: string): number;
  concat(list: Uint8Array[], totalLength?: number): SlimBuffer;
}

let Slim: SlimBufferClass;
const shim = new URL('../../scripts/shims/buffer.js', import.meta.url).href;

const bytesOf = (b: Uint8Array) => Array.from(b);

describe('Buffer subset of the vendored simple-peer (scripts/shims/buffer.js)', () => {
  beforeAll(async () => {
    Slim = ((await import(shim)) as { Buffer: SlimBufferClass }).Buffer;
  });

  const texts = ['', 'hello', 'こんにちは、充電は何分？', 'emoji 🎙️ and \u00e9', '{"type":"ping","n":1}'];

  it.each(['utf8', 'utf-8', 'hex', 'base64', 'latin1', 'binary'])('encodes and decodes %s like Node', (encoding) => {
    for (const text of texts) {
      const node = NodeBuffer.from(text, 'utf8');
      const slim = Slim.from(text, 'utf8');
      // Encode bytes to a string in this encoding, and decode that string back.
      const encoded = node.toString(encoding as BufferEncoding);
      expect(slim.toString(encoding)).toBe(encoded);
      expect(bytesOf(Slim.from(encoded, encoding))).toEqual(bytesOf(NodeBuffer.from(encoded, encoding as BufferEncoding)));
      if (!['hex', 'base64'].includes(encoding)) {
        // Arbitrary text is valid input for the text encodings only.
        expect(bytesOf(Slim.from(text, encoding))).toEqual(bytesOf(NodeBuffer.from(text, encoding as BufferEncoding)));
      }
    }
  });

  it('decodes utf8 by default and within start/end', () => {
    const slim = Slim.from('abcdef');
    expect(slim.toString()).toBe('abcdef');
    expect(String(slim)).toBe('abcdef');
    expect(slim.toString('utf8', 1, 4)).toBe(NodeBuffer.from('abcdef').toString('utf8', 1, 4));
    expect(slim.toString('hex', 2)).toBe('636465' + '66');
  });

  it('parses hex and base64 leniently, as Node does', () => {
    for (const hex of ['0aff', '0AfF', 'abc', 'zz11', '11zz22', '']) {
      expect(bytesOf(Slim.from(hex, 'hex'))).toEqual(bytesOf(NodeBuffer.from(hex, 'hex')));
    }
    for (const b64 of ['aGk=', 'aGk', 'aGVsbG8gd29ybGQ', 'a-_z', 'aG k=\n', 'ab=cd', 'YQ==YQ==', 'hello', '']) {
      expect(bytesOf(Slim.from(b64, 'base64'))).toEqual(bytesOf(NodeBuffer.from(b64, 'base64')));
    }
  });

  it('reads 7-bit ascii like Node', () => {
    const text = 'plain ascii 123';
    expect(bytesOf(Slim.from(text, 'ascii'))).toEqual(bytesOf(NodeBuffer.from(text, 'ascii')));
    expect(Slim.from(text).toString('ascii')).toBe(text);
  });

  it('rejects unknown encodings', () => {
    expect(() => Slim.from('x', 'utf16le')).toThrow(/Unknown encoding: utf16le/);
    expect(() => Slim.from('x').toString('ucs2')).toThrow(TypeError);
    expect(Slim.isEncoding('UTF8')).toBe(true);
    expect(Slim.isEncoding('utf16le')).toBe(false);
    expect(Slim.isEncoding(3)).toBe(false);
  });

  it('wraps an ArrayBuffer without copying (as simple-peer does for binary messages)', () => {
    const memory = new Uint8Array([1, 2, 3, 4, 5]).buffer;
    const whole = Slim.from(memory);
    const part = Slim.from(memory, 1, 3);
    expect(bytesOf(whole)).toEqual([1, 2, 3, 4, 5]);
    expect(bytesOf(part)).toEqual(bytesOf(NodeBuffer.from(memory, 1, 3)));
    new Uint8Array(memory)[2] = 99;
    expect(whole[2]).toBe(99);
    expect(part[1]).toBe(99);
  });

  it('copies arrays and typed arrays element by element', () => {
    const source = new Uint8Array([7, 8, 9]);
    const copy = Slim.from(source);
    source[0] = 0;
    expect(bytesOf(copy)).toEqual([7, 8, 9]);
    expect(bytesOf(Slim.from([1, 256, 257, -1]))).toEqual(bytesOf(NodeBuffer.from([1, 256, 257, -1])));
    expect(bytesOf(Slim.from(new Uint16Array([1, 513])))).toEqual(bytesOf(NodeBuffer.from(new Uint16Array([1, 513]))));
    expect(() => Slim.from(42 as unknown as string)).toThrow(TypeError);
  });

  it('makes instances whose prototype is exactly Buffer.prototype (readable-stream checks it)', () => {
    for (const made of [Slim.from('a'), Slim.from([1]), Slim.from(new ArrayBuffer(2)), Slim.alloc(1), Slim.allocUnsafe(1),
      Slim.allocUnsafeSlow(1), Slim.concat([Slim.from('a')]), Slim.from('abc').slice(1), Slim.from('abc').subarray(1)]) {
      expect(Object.getPrototypeOf(made)).toBe(Slim.prototype);
      expect(Slim.isBuffer(made)).toBe(true);
    }
    expect(Slim.isBuffer(new Uint8Array(1))).toBe(false);
    expect(Slim.isBuffer('a')).toBe(false);
  });

  it('slices as views on the same memory (randombytes fills slices in place)', () => {
    const buf = Slim.alloc(6);
    const view = buf.slice(2, 4);
    view[0] = 5;
    expect(bytesOf(buf)).toEqual([0, 0, 5, 0, 0, 0]);
    const node = NodeBuffer.alloc(6);
    node.subarray(2, 4)[0] = 5;
    expect(bytesOf(buf)).toEqual(bytesOf(node));
    expect(bytesOf(Slim.from('abcdef').slice(-2))).toEqual(bytesOf(NodeBuffer.from('abcdef').subarray(-2)));
  });

  it('allocates zero-filled or filled memory', () => {
    expect(bytesOf(Slim.alloc(3))).toEqual([0, 0, 0]);
    expect(bytesOf(Slim.alloc(3, 7))).toEqual(bytesOf(NodeBuffer.alloc(3, 7)));
    expect(Slim.allocUnsafe(4).length).toBe(4);
  });

  it('copies into targets with Node bounds and return values', () => {
    const cases: Array<[number, number | undefined, number | undefined, number | undefined]> = [
      [8, undefined, undefined, undefined],
      [8, 2, undefined, undefined],
      [8, 6, undefined, undefined],
      [8, 0, 1, 3],
      [3, 0, 0, 5],
      [8, 8, 0, 5],
      [8, 1, 4, 2],
    ];
    for (const [size, targetStart, sourceStart, sourceEnd] of cases) {
      const slimTarget = Slim.alloc(size);
      const nodeTarget = NodeBuffer.alloc(size);
      const slimCount = Slim.from('abcde').copy(slimTarget, targetStart, sourceStart, sourceEnd);
      const nodeCount = NodeBuffer.from('abcde').copy(nodeTarget, targetStart, sourceStart, sourceEnd);
      expect([slimCount, bytesOf(slimTarget)]).toEqual([nodeCount, bytesOf(nodeTarget)]);
    }
    // readable-stream's buffer_list calls it on the prototype with a plain Uint8Array target.
    const target = new Uint8Array(4);
    Slim.prototype.copy.call(Slim.from('xy'), target, 1);
    expect(bytesOf(target)).toEqual([0, 120, 121, 0]);
  });

  it('concatenates, truncating or zero-padding to totalLength like Node', () => {
    const parts = [Slim.from('ab'), Slim.from('cde'), Slim.from('')];
    const nodeParts = [NodeBuffer.from('ab'), NodeBuffer.from('cde'), NodeBuffer.from('')];
    expect(bytesOf(Slim.concat(parts))).toEqual(bytesOf(NodeBuffer.concat(nodeParts)));
    expect(bytesOf(Slim.concat(parts, 3))).toEqual(bytesOf(NodeBuffer.concat(nodeParts, 3)));
    expect(bytesOf(Slim.concat(parts, 7))).toEqual(bytesOf(NodeBuffer.concat(nodeParts, 7)));
    expect(Slim.concat([]).length).toBe(0);
  });

  it('measures byte lengths and compares contents', () => {
    for (const text of texts) expect(Slim.byteLength(text)).toBe(NodeBuffer.byteLength(text));
    expect(Slim.byteLength('00ff', 'hex')).toBe(2);
    expect(Slim.byteLength(new Uint8Array(5))).toBe(5);
    expect(Slim.from('abc').equals(Slim.from('abc'))).toBe(true);
    expect(Slim.from('abc').equals(Slim.from('abd'))).toBe(false);
    expect(Slim.from('abc').equals(Slim.from('ab'))).toBe(false);
  });

  it('decodes large buffers to latin1/base64 without overflowing the stack', () => {
    const big = NodeBuffer.alloc(300_000, 0xe9);
    const slim = Slim.from(big);
    expect(slim.toString('latin1')).toBe(big.toString('latin1'));
    expect(slim.toString('base64')).toBe(big.toString('base64'));
  });
});
