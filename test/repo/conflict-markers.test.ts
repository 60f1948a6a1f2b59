import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptFixture } from './script-fixture.js';

// scripts/check-conflict-markers.mjs (a step of npm test) on throw-away git repositories: it must
// fail on a tracked file holding a merge conflict, name the file and line, and pass a clean tree.

const { tree, check, cleanup } = scriptFixture('check-conflict-markers');
afterEach(cleanup);

/** A git repository whose index holds `files`; `untracked` files are written after `git add`. */
function repo(files: Record<string, string | Buffer>, untracked: Record<string, string> = {}): string {
  const dir = tree(files);
  const git = (...args: string[]) => expect(spawnSync('git', args, { cwd: dir, encoding: 'utf8' }).status).toBe(0);
  git('init', '-q');
  git('add', '.');
  for (const [name, content] of Object.entries(untracked)) writeFileSync(path.join(dir, name), content);
  return dir;
}

describe('check-conflict-markers', () => {
  it('fails on a tracked file with a merge conflict and names each marker line', () => {
    const conflicted = ['# Title', '<<<<<<< HEAD', 'old line', '=======', 'new line', '>>>>>>> main', 'after', ''].join('\n');
    const { status, output } = check(repo({ 'README.md': conflicted, 'ok.ts': 'export const a = 1;\n' }));
    expect(status, output).toBe(1);
    expect(output).toContain('README.md:2: <<<<<<< HEAD');
    expect(output).toContain('README.md:4: =======');
    expect(output).toContain('README.md:6: >>>>>>> main');
    expect(output).not.toContain('ok.ts');
  });

  it('passes a clean tree, where lookalikes are not markers', () => {
    const clean = ['# Title', 'a ======= b', '========', '<<<<<<<< eight', '  >>>>>>> indented', '```', 'x <<<<<<< y', '```', ''].join('\n');
    const { status, output } = check(repo({ 'README.md': clean }));
    expect(status, output).toBe(0);
    expect(output).toContain('none');
  });

  it('checks the lockfile and CRLF files, skips binary and untracked files', () => {
    const lock = '{\n<<<<<<< HEAD\n  "a": 1\n=======\n  "a": 2\n>>>>>>> theirs\n}\n';
    expect(check(repo({ 'package-lock.json': lock })).status).toBe(1);
    expect(check(repo({ 'notes.txt': 'a\r\n=======\r\nb\r\n' })).output).toContain('notes.txt:2');
    const binary = Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('\n<<<<<<< HEAD\n')]);
    expect(check(repo({ 'image.png': binary })).status).toBe(0);
    expect(check(repo({ 'a.md': 'fine\n' }, { 'scratch.md': '<<<<<<< HEAD\n' })).status).toBe(0);
  });

  it('treats a bare ======= line as a marker even under text (setext headings are not used here)', () => {
    const { status, output } = check(repo({ 'doc.md': 'A heading\n=======\n' }));
    expect(status, output).toBe(1);
    expect(output).toContain('doc.md:2');
  });
});
