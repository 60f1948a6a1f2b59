import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The injected Clock is the client's only source of time (docs/client.md): no global timer, no
// Date.now or performance.now anywhere in src/client except clock.ts, so every time rule of a call
// (trickle retries, fallback and ICE restart limits included) runs on a test's fake clock.

const root = fileURLToPath(new URL('../../src/client/', import.meta.url));
const GLOBAL_TIME = /(?<![Cc]lock\.)\b(?:setTimeout|setInterval|clearTimeout|clearInterval|requestAnimationFrame)\b|\bDate\.now\b|\bperformance\.now\b|\bnew Date\(\s*\)/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('client time', () => {
  it('no global timer or clock read in src/client outside clock.ts', () => {
    const found: string[] = [];
    for (const file of files(root)) {
      if (path.relative(root, file) === 'clock.ts') continue;
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '').replace(/\/\*.*$/, '').replace(/^\s*\*.*$/, '');
        if (GLOBAL_TIME.test(code)) found.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
