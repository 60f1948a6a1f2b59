#!/usr/bin/env node
// `node scripts/check-doc-links.mjs [--root DIR] [FILE.md ...]` (default: every documentation page of DIR,
// the repository unless given, see scripts/lib/doc-pages.mjs): every relative link of the pages must point at a file or folder of the
// repository, and a `#anchor` (alone, or after a .md file) at a heading of that page, as GitHub
// makes anchors. Links outside the repository, or into node_modules/, fail: the repository stands
// alone. Absolute URLs (http:, https:, mailto:) are not fetched. Links inside code (fenced blocks,
// `code spans`) are not links. Prints each broken link as FILE:LINE and exits 1 if there is one.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { docPages } from './lib/doc-pages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The fence (``` or ~~~…) a line opens, or null. */
function opens(line) {
  const m = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
  // CommonMark: a backtick fence's info string has no backtick (else the line is inline code).
  return m && !(m[1][0] === '`' && m[2].includes('`')) ? m[1] : null;
}

/** Whether a line closes a fenced block opened by `fence` (same character, at least as long, nothing after). */
function closes(line, fence) {
  const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** The lines of a markdown text outside fenced code blocks, with code spans blanked: `{ line, text }`. */
function proseLines(markdown) {
  const lines = markdown.split('\n');
  const prose = [];
  let fence = null;
  for (let i = 0; i < lines.length; i++) {
    const open = opens(lines[i]);
    if (fence) {
      if (closes(lines[i], fence)) fence = null;
      continue;
    }
    if (open) {
      fence = open;
      continue;
    }
    prose.push({ line: i + 1, text: lines[i].replace(/(`+)[^`]*?\1/g, (m) => 'x'.repeat(m.length)) });
  }
  return prose;
}

/** GitHub's anchor of a heading text: lower case, markup and punctuation dropped, spaces as `-`. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown page defines: its headings (with -1, -2… for repeats) and `<a id|name>`. */
export function anchors(markdown) {
  const found = new Set();
  const seen = new Map();
  const lines = markdown.split('\n');
  let fence = null;
  for (const raw of lines) {
    const open = opens(raw);
    if (fence) {
      if (closes(raw, fence)) fence = null;
      continue;
    }
    if (open) {
      fence = open;
      continue;
    }
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const base = slug(heading[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of raw.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) found.add(a[1]);
  }
  return found;
}

/** The relative link targets of a page: `{ line, target }` (inline links, images and reference definitions). */
export function relativeLinks(markdown) {
  const links = [];
  for (const { line, text } of proseLines(markdown)) {
    const targets = [
      ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
      ...[...text.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
    ];
    for (const target of targets) if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line, target });
  }
  return links;
}

/** Broken relative links of the given pages, as `FILE:LINE: target (why)` strings. */
export function brokenLinks(files, repoRoot = root) {
  const problems = [];
  const anchorCache = new Map();
  const anchorsOf = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchors(readFileSync(file, 'utf8')));
    return anchorCache.get(file);
  };
  for (const file of files) {
    const where = (line) => `${path.relative(repoRoot, file)}:${line}`;
    for (const { line, target } of relativeLinks(readFileSync(file, 'utf8'))) {
      const [rawPath, anchor] = target.split('#', 2);
      let targetPath = file;
      if (rawPath) {
        targetPath = path.resolve(path.dirname(file), decodeURIComponent(rawPath));
        const inside = path.relative(repoRoot, targetPath);
        if (inside.startsWith('..') || path.isAbsolute(inside)) {
          problems.push(`${where(line)}: ${target} (outside the repository)`);
          continue;
        }
        if (inside.split(path.sep).includes('node_modules')) {
          problems.push(`${where(line)}: ${target} (inside node_modules)`);
          continue;
        }
        if (!existsSync(targetPath)) {
          problems.push(`${where(line)}: ${target} (no such file)`);
          continue;
        }
      }
      if (anchor !== undefined && targetPath.endsWith('.md') && statSync(targetPath).isFile() && !anchorsOf(targetPath).has(decodeURIComponent(anchor))) {
        problems.push(`${where(line)}: ${target} (no heading #${anchor} in ${path.relative(repoRoot, targetPath)})`);
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let repoRoot = root;
  const args = [];
  for (let i = 2; i < process.argv.length; i++) {
    if (process.argv[i] === '--root') repoRoot = path.resolve(process.argv[++i]);
    else args.push(process.argv[i]);
  }
  const files = (args.length ? args : docPages(repoRoot)).map((f) => path.resolve(f));
  const problems = brokenLinks(files, repoRoot);
  for (const p of problems) console.log(p);
  console.log(`doc links: ${problems.length} broken in ${files.length} page(s) (${files.map((f) => path.relative(repoRoot, f).split(path.sep).join('/')).join(', ')})`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
