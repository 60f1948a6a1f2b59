/**
 * Where a WebAssembly module's writable memory starts, read from its binary: the lowest address of
 * an active data segment not named `.rodata` (names from the `name` section, as wasm-ld writes them).
 * Below it lies only read-only data (for Flite, 16 MB of voices), which no run changes, so a reset
 * restores the memory from there up instead of copying all of it (and evicting the voices from the
 * CPU caches) before every synthesis. Returns 0 — restore everything — when the binary does not say.
 */
export function writableMemoryStart(bytes: Uint8Array): number {
  try {
    const segments = new Map<number, number>(); // index -> offset of active segments
    const names = new Map<number, string>();
    let at = 8; // magic + version
    while (at < bytes.length) {
      const id = bytes[at++]!;
      const [size, body] = leb(bytes, at);
      const end = body + size;
      if (id === 11) readDataSegments(bytes, body, segments);
      else if (id === 0) readSegmentNames(bytes, body, end, names);
      at = end;
    }
    const rodata = [...names].filter(([, name]) => name === '.rodata').map(([index]) => index);
    if (rodata.length === 0 || segments.size === 0) return 0;
    const writable = [...segments].filter(([index]) => !rodata.includes(index)).map(([, offset]) => offset);
    // Only read-only segments: writable memory starts after the last of them is unknown, so restore all.
    return writable.length ? Math.min(...writable) : 0;
  } catch {
    return 0;
  }
}

function leb(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    if (b === undefined || shift > 28) throw new Error('bad LEB128');
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

/** Active segments of memory 0 whose offset is a constant (`i32.const N; end`). */
function readDataSegments(bytes: Uint8Array, at: number, into: Map<number, number>): void {
  let [count, p] = leb(bytes, at);
  for (let index = 0; index < count; index++) {
    let flag: number;
    [flag, p] = leb(bytes, p);
    if (flag === 2) [, p] = leb(bytes, p); // explicit memory index
    let offset: number | undefined;
    if (flag === 0 || flag === 2) {
      if (bytes[p] !== 0x41) throw new Error('segment offset is not an i32.const');
      [offset, p] = leb(bytes, p + 1); // small positive offsets: unsigned and signed LEB agree
      if (bytes[p++] !== 0x0b) throw new Error('segment offset is not a constant');
    }
    let length: number;
    [length, p] = leb(bytes, p);
    p += length;
    if (offset !== undefined) into.set(index, offset);
  }
}

/** Data segment names: subsection 9 of the custom `name` section. */
function readSegmentNames(bytes: Uint8Array, at: number, end: number, into: Map<number, string>): void {
  const [nameLength, p0] = leb(bytes, at);
  if (new TextDecoder().decode(bytes.subarray(p0, p0 + nameLength)) !== 'name') return;
  let p = p0 + nameLength;
  while (p < end) {
    const sub = bytes[p++]!;
    const [size, body] = leb(bytes, p);
    if (sub === 9) {
      let [count, q] = leb(bytes, body);
      for (; count > 0; count--) {
        let index: number;
        let length: number;
        [index, q] = leb(bytes, q);
        [length, q] = leb(bytes, q);
        into.set(index, new TextDecoder().decode(bytes.subarray(q, q + length)));
        q += length;
      }
    }
    p = body + size;
  }
}
