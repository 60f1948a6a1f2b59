import { afterEach, describe, expect, it, vi } from 'vitest';

const KEY = 'kbv-secret-key-123';
const bodies: [string, string, boolean][] = [
  ['plain', `{"a":"${KEY}"}`, true],
  ['JSON-escaped', `{"a":"kbv\\u002dsecret-key-123"}`, true],
  ['percent-encoded', `?x=kbv%2Dsecret%2Dkey%2D123`, true],
  ['escaped slash noise', `{"a":"kbv-secret\\/key"}`, false],
  ['absent', `{"tokens":1,"kbv":"secret","key":123}`, false],
  ['cut escape at the end', `{"a":"kbv-secret-key-12\\u00`, false],
];

async function load() {
  vi.resetModules();
  return import('../../src/relay/secret-scan.js');
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('SecretScanner.leaksWhole', () => {
  for (const withBuffer of [true, false]) {
    it(`agrees with leaks(body) || leaks() (${withBuffer ? 'Node Buffer search' : 'no Buffer, as in browsers and Workers'})`, async () => {
      if (!withBuffer) vi.stubGlobal('Buffer', undefined);
      const { SecretScanner, Secrets } = await load();
      const secrets = new Secrets([KEY, 'grant-secret']);
      for (const [name, text, leaks] of bodies) {
        const bytes = new TextEncoder().encode(text);
        const streamed = new SecretScanner(secrets);
        expect(streamed.leaks(bytes) || streamed.leaks(), name).toBe(leaks);
        expect(new SecretScanner(secrets).leaksWhole(bytes), name).toBe(leaks);
        // A view into a larger buffer: only its own bytes count.
        const padded = new TextEncoder().encode(`${KEY}|${text}|${KEY}`);
        const view = padded.subarray(KEY.length + 1, KEY.length + 1 + bytes.length);
        expect(new SecretScanner(secrets).leaksWhole(view), `${name} (view)`).toBe(leaks);
      }
    });
  }
});

describe('SecretScanner.leaks across chunks', () => {
  for (const withBuffer of [true, false]) {
    it(`keeps its own copy of the bytes it carries over: a reused chunk cannot hide a split secret (${withBuffer ? 'Node Buffer search' : 'no Buffer'})`, async () => {
      if (!withBuffer) vi.stubGlobal('Buffer', undefined);
      const { SecretScanner, Secrets } = await load();
      const secrets = new Secrets([KEY]);
      for (const [first, second] of [[`{"a":"${KEY.slice(0, 9)}`, `${KEY.slice(9)}"}`], [`{"a":"kbv\\u00`, `2dsecret-key-123"}`]]) {
        const scanner = new SecretScanner(secrets);
        const chunk = new TextEncoder().encode(first!);
        expect(scanner.leaks(chunk)).toBe(false);
        // A stream may hand over the next chunk in the same memory.
        chunk.fill(0x20);
        expect(scanner.leaks(new TextEncoder().encode(second!)), first).toBe(true);
      }
    });
  }
});
