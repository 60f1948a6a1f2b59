/**
 * The relay's one secret guard. Every byte the upstream sends to a caller passes `SecretScanner`,
 * which finds a secret (the API key, the grant secret) written plainly or in any form a caller's
 * JSON or URL decoding would turn back into it: JSON escapes (`sk\u002d…`, `\/`, `\\`), and
 * percent-encoding (`sk%2D…`), even when the secret is split across chunks. Only escapes of ASCII
 * characters are decoded (API keys are ASCII). Encoded (compressed) bodies never reach it: the
 * upstream is asked for `identity` and any other encoding is decoded first or refused (see upstream.ts).
 */

const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const SIMPLE_ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };
/** Bytes the escape starting at `i` needs to be complete (`%XX`, `\uXXXX`, `\n`...). */
const escapeLength = (raw: Uint8Array, i: number) => (raw[i] === PERCENT ? 3 : i + 1 >= raw.length ? 2 : raw[i + 1] === 0x75 ? 6 : 2);

const hexValue = (b: number) => (b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x41 && b <= 0x46 ? b - 0x37 : b >= 0x61 && b <= 0x66 ? b - 0x57 : -1);

function hexAt(bytes: Uint8Array, at: number, count: number): number {
  let v = 0;
  for (let i = 0; i < count; i++) {
    const h = hexValue(bytes[at + i]!);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/** Node's and Bun's `Buffer`, whose `indexOf` searches natively (memchr-like, ~6x the typed array's own); absent in browsers and Workers. */
const NativeBuffer = (globalThis as { Buffer?: { from(buffer: ArrayBufferLike, offset: number, length: number): Uint8Array; isBuffer(b: unknown): boolean } }).Buffer;

/** The bytes as a view with the native search where there is one (the same memory, no copy). */
const searchable = (bytes: Uint8Array): Uint8Array => (NativeBuffer && !NativeBuffer.isBuffer(bytes) ? NativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes);

/** Where `needle` starts in `haystack` (-1: nowhere); `haystack` is `searchable` already. */
function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  if (NativeBuffer) return haystack.indexOf(needle as never);
  const first = needle[0]!;
  for (let i = haystack.indexOf(first); i >= 0 && i + needle.length <= haystack.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** A copy of `bytes` from `start` (a Buffer's own `slice` would share the chunk's memory). */
const copy = (bytes: Uint8Array, start: number): Uint8Array => Uint8Array.prototype.slice.call(bytes, start);

const encoder = new TextEncoder();
const EMPTY: Uint8Array = new Uint8Array(0);

/** The strings no caller may see, encoded once per relay (every scanner of the relay shares them). */
export class Secrets {
  readonly list: readonly string[];
  readonly needles: readonly Uint8Array[];
  readonly longest: number;
  constructor(list: readonly string[]) {
    this.list = list.filter(Boolean);
    this.needles = this.list.map((s) => encoder.encode(s));
    this.longest = Math.max(1, ...this.needles.map((n) => n.length));
  }
}

/** Finds secrets in a byte stream read chunk by chunk (see the module comment). */
export class SecretScanner {
  readonly #needles: readonly Uint8Array[];
  readonly #keep: number;
  /** Decoded bytes kept from earlier chunks (a secret split across chunks). */
  #tail = EMPTY;
  /** Raw bytes of an escape cut by the chunk boundary. */
  #pending = EMPTY;

  constructor(secrets: Secrets) {
    this.#needles = secrets.needles;
    this.#keep = secrets.longest - 1;
  }

  /** Whether a whole body (nothing before or after it) holds a secret: `leaks(body) || leaks()` without keeping a tail. */
  leaksWhole(body: Uint8Array): boolean {
    return this.#holdsNeedle(this.#decode(searchable(body), true));
  }

  /** `bytes` is `searchable` (a decoded body is a fresh Buffer-backed view when there is a Buffer). */
  #holdsNeedle(bytes: Uint8Array): boolean {
    for (const n of this.#needles) if (indexOf(bytes, n) >= 0) return true;
    return false;
  }

  /** Whether `chunk`, after the bytes seen before it, completes a secret. Call with no chunk at the end. */
  leaks(chunk?: Uint8Array): boolean {
    const final = chunk === undefined;
    let raw = chunk ?? EMPTY;
    if (this.#pending.length) {
      raw = new Uint8Array(this.#pending.length + (chunk?.length ?? 0));
      raw.set(this.#pending);
      if (chunk) raw.set(chunk, this.#pending.length);
      this.#pending = EMPTY;
    }
    if (final && raw.length === 0) return false;
    const decoded = this.#decode(searchable(raw), final);
    let window = decoded;
    if (this.#tail.length) {
      window = new Uint8Array(this.#tail.length + decoded.length);
      window.set(this.#tail);
      window.set(decoded, this.#tail.length);
    }
    if (this.#holdsNeedle(searchable(window))) return true;
    if (!final) this.#tail = copy(window, Math.max(0, window.length - this.#keep));
    return false;
  }

  /** The bytes with JSON and percent escapes of ASCII characters decoded; an escape cut at the end is kept for the next chunk. */
  #decode(raw: Uint8Array, final: boolean): Uint8Array {
    if (raw.indexOf(BACKSLASH) < 0 && raw.indexOf(PERCENT) < 0) return raw;
    const out = searchable(new Uint8Array(raw.length));
    let n = 0;
    for (let i = 0; i < raw.length; i++) {
      const b = raw[i]!;
      if (b !== BACKSLASH && b !== PERCENT) {
        out[n++] = b;
        continue;
      }
      if (!final && i + escapeLength(raw, i) > raw.length) {
        // An escape cut by the chunk boundary: it is decoded with the next chunk. It cannot complete
        // a secret yet, and every complete escape is decoded in the chunk that completes it.
        this.#pending = copy(raw, i);
        break;
      }
      if (b === PERCENT) {
        const v = hexAt(raw, i + 1, 2);
        if (v >= 0 && v < 0x80) {
          out[n++] = v;
          i += 2;
        } else out[n++] = b;
        continue;
      }
      const next = raw[i + 1];
      if (next === 0x75) {
        const v = hexAt(raw, i + 2, 4);
        if (v >= 0) {
          out[n++] = v < 0x80 ? v : 0;
          i += 5;
          continue;
        }
      } else if (next !== undefined && next in SIMPLE_ESCAPES) {
        out[n++] = SIMPLE_ESCAPES[next]!;
        i += 1;
        continue;
      }
      out[n++] = b;
    }
    return out.subarray(0, n);
  }
}

/** Whether `text` holds one of `secrets` in any form the scanner recognises. */
export function containsSecret(text: string, secrets: Secrets): boolean {
  // Without an escape character, only the plain form can occur.
  if (!text.includes('\\') && !text.includes('%')) {
    for (const s of secrets.list) if (text.includes(s)) return true;
    return false;
  }
  const scanner = new SecretScanner(secrets);
  return scanner.leaks(encoder.encode(text)) || scanner.leaks();
}

/** Thrown into a guarded stream that would reveal a secret. */
export class SecretWithheld extends Error {
  constructor() {
    super('Upstream response withheld: it contained a secret');
    this.name = 'SecretWithheld';
  }
}

/**
 * A body passed through chunk by chunk (no buffering) that throws before the chunk that would
 * complete a secret, so a secret echoed by the upstream never fully reaches the caller. `first` is
 * what was already read (and scanned), `pending` a read already started on `iterator`.
 */
export async function* guardBody(
  iterator: AsyncIterator<Uint8Array>,
  scanner: SecretScanner,
  onLeak: () => void,
  first?: Uint8Array,
  pending?: Promise<IteratorResult<Uint8Array>>,
): AsyncGenerator<Uint8Array> {
  let done = false;
  try {
    if (first?.byteLength) yield first;
    for (;;) {
      const next = await (pending ?? iterator.next());
      pending = undefined;
      if (scanner.leaks(next.done ? undefined : next.value)) {
        onLeak();
        throw new SecretWithheld();
      }
      if (next.done) break;
      yield next.value;
    }
    done = true;
  } finally {
    // Cut, failed or abandoned by the caller: the upstream connection is dropped.
    if (!done) void iterator.return?.()?.catch(() => {});
  }
}
