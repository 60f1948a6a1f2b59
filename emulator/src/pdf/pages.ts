import { highlight } from './highlight.js';
import { extractText, type PageText } from './text.js';

// Parsed pages per stored document; a re-uploaded file has new bytes and so a new entry.
const cache = new WeakMap<Uint8Array, PageText[]>();

/** The text of each page of a stored PDF, parsed once per document (throws PdfFormatError for a PDF it cannot read). */
export function pdfPages(pdf: Uint8Array): PageText[] {
  let pages = cache.get(pdf);
  if (!pages) cache.set(pdf, (pages = extractText(pdf)));
  return pages;
}

/**
 * The 1-based page on which E9 finds `text` (the same matching as E9's), or undefined when no
 * page holds it or the PDF cannot be read: a knowledge reference then has no page.
 */
export function pageOf(pdf: Uint8Array, text: string): number | undefined {
  try {
    return pdfPages(pdf).find((page) => highlight(page, text).length > 0)?.page;
  } catch {
    return undefined;
  }
}
