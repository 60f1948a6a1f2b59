// The documentation pages of the repository, found by name so that a new page is covered by the
// doc-test and the link check without editing a list: README.md, docs/*.md, and the README.md of
// each folder at the top level (emulator/, bench/, qa/…). Build output and installed packages are
// not pages.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const NOT_PAGES = new Set(['node_modules', 'dist', 'test-results', 'playwright-report', 'coverage']);

/** Absolute paths of the documentation pages under `root`, in a stable order (README first). */
export function docPages(root) {
  const pages = [];
  if (existsSync(path.join(root, 'README.md'))) pages.push(path.join(root, 'README.md'));
  const docs = path.join(root, 'docs');
  if (existsSync(docs)) {
    for (const name of readdirSync(docs).sort()) if (name.endsWith('.md')) pages.push(path.join(docs, name));
  }
  for (const entry of readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || NOT_PAGES.has(entry.name)) continue;
    const readme = path.join(root, entry.name, 'README.md');
    if (existsSync(readme)) pages.push(readme);
  }
  return pages;
}
