import type { Hono } from 'hono';
import { endpoints } from 'kb-voice/schemas';
import { notFound } from '../http/errors.js';
import { route } from '../http/route.js';
import type { ServerContext } from '../http/server-context.js';
import { highlight } from '../pdf/highlight.js';
import { PdfFormatError } from '../pdf/objects.js';
import { pdfPages } from '../pdf/pages.js';
import type { PageText } from '../pdf/text.js';

/** E9: highlight boxes of a text on a page of a stored PDF. */
export function registerDocumentRoutes(app: Hono, sc: ServerContext): void {
  route(app, sc, endpoints.E9, ({ body }) => {
    const file = sc.store.files.get(body.file_id);
    if (!file) throw notFound('File');
    const fail = (message: string) => ({ json: { success: false, positions: [], message } });
    if (!file.pdf) return fail(`File ${file.name} is not a PDF`);
    let pages: PageText[];
    try {
      pages = pdfPages(file.pdf);
    } catch (error) {
      if (error instanceof PdfFormatError) return fail(`The PDF could not be read: ${error.message}`);
      throw error;
    }
    const page = pages[body.page - 1];
    if (!page) return fail(`Page ${body.page} is out of range: the document has ${pages.length} page${pages.length === 1 ? '' : 's'}`);
    const positions = highlight(page, body.text);
    if (positions.length === 0) return fail(`Text not found on page ${body.page}`);
    return { json: { success: true, positions, message: `Found ${positions.length} box${positions.length === 1 ? '' : 'es'} on page ${body.page}` } };
  });
}
