import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README is the newcomer's page: short, opening with the two commands a fresh clone needs; the
// detail lives in docs/ (issue 22). These keep it that way.

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('opens with the fresh-clone commands in a fenced block', () => {
    const lines = readme.split('\n');
    expect(lines[0]).toBe('# kb-voice');
    expect(lines[2]).toMatch(/^```sh skip: /);
    expect(lines[3]).toMatch(/^npm install && npm run demo\s+#/);
    expect(lines[4]).toMatch(/^npm test\s+#/);
    expect(lines[5]).toBe('```');
  });

  it('links every page of docs/', () => {
    const pages = readdirSync(new URL('../../docs/', import.meta.url)).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(readme, `README.md links docs/${page}`).toContain(`](docs/${page})`);
  });
});
