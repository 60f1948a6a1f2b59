import { Buffer as NodeBuffer } from 'node:buffer';
import { beforeAll, describe, expect, it } from 'vitest';

// scripts/shims/buffer.cjs stands in for the `buffer` package inside the vendored simple-peer
// bundle. simple-peer 9 uses it once, `Buffer.from(event.data)` for a binary data-channel message
// (scripts/build.mjs fails the build if that count changes): the shim must give the same bytes as
// Node's Buffer there, on the same memory, and refuse anything else rather than answer wrongly.

let Slim: { from(value: unknown): Uint8Array };
const shim = new URL('../../scripts/shims/buffer.cjs', import.meta.url).href;

describe('Buffer of the vendored simple-peer (scripts/shims/buffer.cjs)', () => {
  beforeAll(async () => {
    Slim = ((await import(shim)) as { default: { Buffer: typeof Slim } }).default.Buffer;
  });

  it('wraps an ArrayBuffer without copying, with the bytes Node gives (as simple-peer does for binary messages)', () => {
    const memory = new Uint8Array([1, 2, 3, 4, 5]).buffer;
    const view = Slim.from(memory);
    expect(view).toBeInstanceOf(Uint8Array);
    expect(Array.from(view)).toEqual(Array.from(NodeBuffer.from(memory)));
    new Uint8Array(memory)[2] = 99;
    expect(view[2]).toBe(99);
  });

  it('refuses what simple-peer never passes (a string, an array) instead of guessing an encoding', () => {
    expect(() => Slim.from('text')).toThrow(TypeError);
    expect(() => Slim.from([1, 2])).toThrow(TypeError);
  });
});
