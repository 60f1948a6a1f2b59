import type { Source } from 'kb-voice';
import { el } from './dom.js';

/** http(s) URLs only become links: anything else the service sends (javascript:, data:) stays text. */
const linkable = (url: string | undefined) => (url && /^https?:\/\//i.test(url) ? url : undefined);

/** A turn's sources (`Turn.sources`, read after the turn): titled ones as a list, or a line saying it cites nothing. */
export function renderSources(sources: readonly Source[]): HTMLElement {
  const cited = sources.filter((s) => s.title);
  if (cited.length === 0) return el('p', { class: 'sources', 'data-testid': 'turn-sources', 'data-count': 0 }, 'Cites no source.');
  return el(
    'div',
    { class: 'sources', 'data-testid': 'turn-sources', 'data-count': cited.length },
    'Sources: ',
    el('ul', {}, ...cited.map((s) => {
      const href = linkable(s.url);
      return el('li', { 'data-testid': 'turn-source', 'data-file-id': s.fileId },
        href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, s.title) : s.title,
        s.page ? ` (page ${s.page})` : '',
        s.snippet ? el('q', {}, s.snippet) : null);
    })),
  );
}
