import type { PdfPosition } from 'kb-voice/schemas';
import type { PageText } from './text.js';

/**
 * Finds `query` on one page and returns one box per text run the match touches (a match spanning
 * two lines gives two boxes). Matching ignores case and collapses runs of white space, and runs are
 * joined with a space, so a phrase broken across lines is still found. Boxes are in PDF points with
 * the origin at the page's top-left (as a viewer draws them): `y` is the top of the box, which spans
 * from 0.2 em below the baseline to 0.8 em above it.
 */
export function highlight(page: PageText, query: string): PdfPosition[] {
  // Flatten the page into one normalized string, remembering each character's run and index.
  let flat = '';
  const origin: { run: number; index: number }[] = [];
  page.runs.forEach((run, r) => {
    if (flat !== '' && !flat.endsWith(' ')) {
      flat += ' ';
      origin.push({ run: r, index: -1 });
    }
    for (let i = 0; i < run.text.length; i++) {
      const ch = /\s/.test(run.text[i]!) ? ' ' : run.text[i]!.toLowerCase();
      if (ch === ' ' && flat.endsWith(' ')) continue;
      flat += ch;
      origin.push({ run: r, index: i });
    }
  });
  const needle = query.trim().replace(/\s+/g, ' ').toLowerCase();
  if (needle === '') return [];

  const positions: PdfPosition[] = [];
  for (let at = flat.indexOf(needle); at >= 0; at = flat.indexOf(needle, at + needle.length)) {
    const spans = new Map<number, { from: number; to: number }>();
    for (let k = at; k < at + needle.length; k++) {
      const o = origin[k]!;
      if (o.index < 0) continue;
      const span = spans.get(o.run);
      if (span) span.to = o.index;
      else spans.set(o.run, { from: o.index, to: o.index });
    }
    for (const [r, { from, to }] of spans) {
      const run = page.runs[r]!;
      const x = run.edges[from]!;
      const right = run.edges[to + 1]!;
      positions.push({
        page: page.page,
        x: round(x),
        y: round(page.height - (run.y + run.size * 0.8)),
        width: round(right - x),
        height: round(run.size),
        text: run.text.slice(from, to + 1),
      });
    }
  }
  return positions;
}

const round = (n: number) => Math.round(n * 100) / 100;
