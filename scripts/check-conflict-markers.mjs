#!/usr/bin/env node
// `node scripts/check-conflict-markers.mjs [--root DIR]`: fails when a file git tracks (`git ls-files`
// in DIR, default the repository; the lockfile included) still holds a merge-conflict marker: a line
// starting with `<<<<<<< ` or `>>>>>>> ` (or exactly `<<<<<<<` / `>>>>>>>`), or a line that is exactly
// `=======`. The last one is also a Markdown setext heading underline; this repository writes
// headings with `#` instead, so such a line is always a marker. Git's `|||||||` (diff3 base) appears
// only together with the others and is not checked alone. Binary files (a NUL byte in the first
// 8000 bytes, as git decides) are skipped. Prints each marker as FILE:LINE and exits 1 if any.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = /^(?:<{7}|>{7})(?: |$)|^={7}$/;

/** Conflict markers in one file's text: `{ line, text }` for each. */
export function markersIn(text) {
  const found = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (MARKER.test(line)) found.push({ line: i + 1, text: line.slice(0, 80) });
  }
  return found;
}

/** Conflict markers in every file git tracks under `root`: `{ file, line, text }`. */
export function findConflictMarkers(root) {
  const listed = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${root}: ${(listed.stderr || listed.error?.message || '').trim()}`);
  const found = [];
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    let bytes;
    try {
      bytes = readFileSync(path.join(root, file));
    } catch (error) {
      if (error.code === 'ENOENT' || error.code === 'EISDIR') continue; // deleted in the work tree, or a submodule
      throw error;
    }
    if (bytes.subarray(0, 8000).includes(0)) continue;
    for (const marker of markersIn(bytes.toString('utf8'))) found.push({ file, ...marker });
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--root');
  const root = at > 0 ? path.resolve(process.argv[at + 1]) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const found = findConflictMarkers(root);
  for (const m of found) console.log(`${m.file}:${m.line}: ${m.text}`);
  const files = new Set(found.map((m) => m.file)).size;
  console.log(found.length === 0 ? 'conflict markers: none in the tracked files' : `conflict markers: ${found.length} in ${files} file(s): resolve the merge`);
  process.exitCode = found.length === 0 ? 0 : 1;
}
