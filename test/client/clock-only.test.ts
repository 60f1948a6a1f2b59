import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The injected Clock (src/clock.ts, a leaf module) is the only source of time of the API client,
// the session and the rnnoise loader (docs/client.md): no global timer, no Date.now or
// performance.now anywhere in src/api, src/client or src/noise, so every time rule (API budgets,
// retries and Retry-After waits, stream silences, trickle retries, fallback and ICE restart limits,
// the rnnoise load) runs on a test's fake clock.

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const FOLDERS = ['api', 'client', 'noise'];
/**
 * Files that may read the platform's time, and why. The rnnoise worklet runs on the audio thread
 * (AudioWorkletGlobalScope, its own bundle): no Clock object can be passed there (processorOptions
 * are structured-cloned), and it reads performance.now only to measure its own CPU cost per frame
 * (`busyMs` in its stats), never to wait or to decide anything.
 */
const MEASURES_ITS_OWN_COST = new Set(['noise/worklet.ts']);
const GLOBAL_TIME = /(?<![Cc]lock\.)\b(?:setTimeout|setInterval|clearTimeout|clearInterval|requestAnimationFrame)\b|\bDate\.now\b|\bperformance\.now\b|\bnew Date\(\s*\)/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** `file:line: text` of each line reading global time (comments left out). */
export function globalTimeReads(text: string, name: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, '').replace(/\/\*.*$/, '').replace(/^\s*\*.*$/, '');
    if (GLOBAL_TIME.test(code)) found.push(`${name}:${i + 1}: ${line.trim()}`);
  });
  return found;
}

describe('one clock', () => {
  it.each(FOLDERS)('no global timer or clock read in src/%s (only src/clock.ts reads them)', (folder) => {
    const dir = path.join(src, folder);
    const checked = files(dir).filter((file) => !MEASURES_ITS_OWN_COST.has(path.relative(src, file)));
    expect(checked.length).toBeGreaterThan(3);
    expect(checked.flatMap((file) => globalTimeReads(readFileSync(file, 'utf8'), path.relative(src, file)))).toEqual([]);
  });

  it('the check finds what the old code did (a raw setTimeout, a Date.now default)', () => {
    expect(globalTimeReads("await new Promise((resolve) => setTimeout(resolve, 1000));\n// setTimeout in a comment\nclock.setTimeout(f, 1)", 'x.ts')).toEqual(['x.ts:1: await new Promise((resolve) => setTimeout(resolve, 1000));']);
    expect(globalTimeReads('constructor(options, now = Date.now) {}', 'y.ts')).toHaveLength(1);
  });
});
