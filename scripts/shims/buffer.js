// The `buffer` module inside the vendored simple-peer bundle (scripts/build.mjs aliases it here).
// The `buffer` npm package is a complete Node Buffer (~7 KB min+gzip with base64-js and ieee754);
// simple-peer, readable-stream (Readable/Writable/Duplex), randombytes and safe-buffer use only
// this subset, with Node's semantics:
//   Buffer.from(string, encoding) / (ArrayBuffer[, offset, length]: shares memory) /
//     (array or typed array: copies element values), alloc, allocUnsafe, allocUnsafeSlow,
//     isBuffer, isEncoding, byteLength, concat;
//   buf.toString(encoding, start, end), buf.slice (a view, like Node, NOT a copy:
//     randombytes fills slices in place), buf.copy, buf.equals.
// Encodings: utf8, hex, base64, latin1/binary, ascii. test/package/slim-buffer.test.ts checks it
// against Node's Buffer.

const ENCODINGS = ['utf8', 'utf-8', 'hex', 'base64', 'latin1', 'binary', 'ascii'];
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

function normalizeEncoding(encoding) {
  const name = String(encoding ?? 'utf8').toLowerCase();
  if (!ENCODINGS.includes(name)) throw new TypeError(`Unknown encoding: ${encoding}`);
  if (name === 'utf-8') return 'utf8';
  if (name === 'binary') return 'latin1';
  return name;
}

export class Buffer extends Uint8Array {
  static from(value, encodingOrOffset, length) {
    if (typeof value === 'string') return fromString(value, encodingOrOffset);
    if (value instanceof ArrayBuffer) {
      const offset = encodingOrOffset === undefined ? 0 : Number(encodingOrOffset);
      return new Buffer(value, offset, length === undefined ? value.byteLength - offset : Number(length));
    }
    if (ArrayBuffer.isView(value) || Array.isArray(value)) {
      const out = new Buffer(value.length);
      out.set(value);
      return out;
    }
    throw new TypeError('Buffer.from expects a string, ArrayBuffer, array or typed array');
  }

  static alloc(size, fill) {
    const out = new Buffer(size);
    if (typeof fill === 'number') out.fill(fill);
    return out;
  }

  static allocUnsafe(size) {
    return new Buffer(size);
  }

  static allocUnsafeSlow(size) {
    return new Buffer(size);
  }

  static isBuffer(value) {
    return value instanceof Buffer;
  }

  static isEncoding(encoding) {
    return typeof encoding === 'string' && ENCODINGS.includes(encoding.toLowerCase());
  }

  static byteLength(value, encoding) {
    return typeof value === 'string' ? fromString(value, encoding).length : value.byteLength;
  }

  static concat(list, totalLength) {
    const total = totalLength ?? list.reduce((sum, item) => sum + item.length, 0);
    const out = new Buffer(total);
    let offset = 0;
    for (const item of list) {
      if (offset >= total) break;
      const part = item.length > total - offset ? item.subarray(0, total - offset) : item;
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  toString(encoding, start = 0, end = this.length) {
    const bytes = this.subarray(Math.max(0, start), Math.min(this.length, end));
    switch (normalizeEncoding(encoding)) {
      case 'utf8':
        return utf8Decoder.decode(bytes);
      case 'hex': {
        let out = '';
        for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
        return out;
      }
      case 'base64':
        return btoa(latin1(bytes));
      case 'ascii': {
        let out = '';
        for (const byte of bytes) out += String.fromCharCode(byte & 0x7f);
        return out;
      }
      default:
        return latin1(bytes);
    }
  }

  /** Node semantics: a view on the same memory. */
  slice(start, end) {
    return this.subarray(start, end);
  }

  copy(target, targetStart = 0, sourceStart = 0, sourceEnd = this.length) {
    const count = Math.max(0, Math.min(sourceEnd, this.length) - sourceStart);
    const fits = Math.min(count, target.length - targetStart);
    if (fits <= 0) return 0;
    target.set(this.subarray(sourceStart, sourceStart + fits), targetStart);
    return fits;
  }

  equals(other) {
    if (this.length !== other.length) return false;
    for (let i = 0; i < this.length; i += 1) if (this[i] !== other[i]) return false;
    return true;
  }
}

function latin1(bytes) {
  let out = '';
  // Chunked: String.fromCharCode with a huge argument list overflows the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return out;
}

function fromString(text, encoding) {
  switch (normalizeEncoding(encoding)) {
    case 'utf8': {
      const bytes = utf8Encoder.encode(text);
      return new Buffer(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    case 'hex': {
      // Like Node: decode pair by pair, stopping at the first pair that is not hex.
      const out = new Buffer(Math.floor(text.length / 2));
      let i = 0;
      for (; i < out.length; i += 1) {
        const pair = text.slice(i * 2, i * 2 + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
        out[i] = Number.parseInt(pair, 16);
      }
      return out.subarray(0, i);
    }
    case 'base64': {
      // Like Node: URL-safe characters accepted, other characters skipped, decoding stops at the
      // first '=', missing padding fine, a dangling sixth-bit group dropped.
      let clean = text.split('=')[0].replace(/[^A-Za-z0-9+/\-_]/g, '').replace(/-/g, '+').replace(/_/g, '/');
      if (clean.length % 4 === 1) clean = clean.slice(0, -1);
      const binary = atob(clean.padEnd(Math.ceil(clean.length / 4) * 4, '='));
      return fromCodes(binary, 0xff);
    }
    case 'ascii':
    case 'latin1':
      return fromCodes(text, 0xff);
    default:
      throw new TypeError(`Unknown encoding: ${encoding}`);
  }
}

function fromCodes(text, mask) {
  const out = new Buffer(text.length);
  for (let i = 0; i < text.length; i += 1) out[i] = text.charCodeAt(i) & mask;
  return out;
}

export const kMaxLength = 0x7fffffff;
export const INSPECT_MAX_BYTES = 50;
