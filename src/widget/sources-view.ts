import type { Turn } from '../client/events.js';
import type { Source } from '../client/sources/normalize.js';
import type { WidgetText } from './locale.js';
import type { WidgetMessageTable } from './messages.js';
import { styleShadowRoot } from './styles.js';

/**
 * The sources UI under each answer (loaded only when `sources` is not `off`): a collapsible
 * Sources list, Show passage for a PDF source (E9), thumbs up and down with an optional feedback
 * box (E6). Every word from the service is set with textContent; only http(s) URLs become links.
 */

/** What the sources UI asks of the element. */
export interface SourcesActions {
  /** `session.rate()`. */
  rate(turnId: number, rating: 1 | -1 | 0, feedback?: string): Promise<void>;
  /** E9 through the relay (`api.pdf.highlightCited`): highlight positions of `text` on `page` of a file the message cites. */
  highlight(messageId: string, body: { file_id: string; text: string; page: number }): Promise<unknown>;
}

/** A PDF source's passage through E9: its page and the highlighted text, or null when the service found no box for it. */
async function findPassage(actions: SourcesActions, messageId: string, source: Source & { fileId: string; page: number; snippet: string }): Promise<{ page: number; text: string } | null> {
  const found = (await actions.highlight(messageId, { file_id: source.fileId, text: source.snippet, page: source.page })) as { success?: unknown; positions?: unknown } | null;
  return found?.success === true && Array.isArray(found.positions) && found.positions.length > 0 ? { page: source.page, text: source.snippet } : null;
}

/** Longest feedback the box takes (characters; the client's own limit, MAX_FEEDBACK_CHARS, is higher). */
export const FEEDBACK_MAX_CHARS = 500;

const CSS = `
.sources { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .5rem; font-size: .85rem; margin-block-end: .25rem; }
.sources button { min-block-size: 2rem; padding: .15rem .6rem; font-size: .85rem; }
.sources ul { flex-basis: 100%; margin: 0; padding-inline-start: 1.1rem; display: grid; gap: .2rem; }
.sources a { color: var(--kbv-accent); }
.sources mark { background: #fff3a3; color: inherit; }
.sources .passage { margin: .2rem 0 0; padding-inline-start: .5rem; border-inline-start: 3px solid var(--kbv-border); }
.sources form { flex-basis: 100%; }
.sources [role="status"]:empty { display: none; }
`;

/** `url` when it is an http: or https: URL, else undefined (`javascript:`, `data:`, relative, malformed: plain text). */
export function safeHref(url: string | undefined): string | undefined {
  try {
    const parsed = new URL(url ?? '');
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

const make = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  if (text !== undefined) el.textContent = text;
  return el;
};

let ids = 0;

/** The block under one answer, updated in place. */
class AnswerBlock {
  readonly el = make('div', { class: 'sources', part: 'sources', 'data-testid': 'sources' });
  private readonly toggle = make('button', { type: 'button', part: 'button sources-toggle', 'data-testid': 'sources-toggle', 'aria-expanded': 'false' });
  private readonly list = make('ul', { part: 'sources-list', id: `kbv-sources-${++ids}` });
  private readonly group = make('span', { role: 'group', part: 'rating' });
  private readonly up = make('button', { type: 'button', part: 'button rate-up', 'data-testid': 'rate-up', 'aria-pressed': 'false' }, '\u{1F44D}');
  private readonly down = make('button', { type: 'button', part: 'button rate-down', 'data-testid': 'rate-down', 'aria-pressed': 'false' }, '\u{1F44E}');
  private readonly form = make('form', { part: 'feedback-form' });
  private readonly feedback = make('input', { type: 'text', part: 'input feedback', 'data-testid': 'feedback', maxlength: String(FEEDBACK_MAX_CHARS) });
  private readonly send = make('button', { type: 'submit', part: 'button feedback-send' });
  private readonly status = make('span', { role: 'status', part: 'rating-status' });
  private sources: readonly Source[] | undefined;
  private rating: 1 | -1 | 0 = 0;

  constructor(private turn: Turn, private readonly actions: SourcesActions, private readonly text: () => WidgetText) {
    this.el.dataset.turn = String(turn.id);
    this.toggle.setAttribute('aria-controls', this.list.id);
    this.toggle.hidden = this.list.hidden = this.form.hidden = true;
    this.toggle.addEventListener('click', () => {
      const open = this.toggle.getAttribute('aria-expanded') !== 'true';
      this.toggle.setAttribute('aria-expanded', String(open));
      this.list.hidden = !open;
    });
    this.up.addEventListener('click', () => void this.rate(this.rating === 1 ? 0 : 1));
    this.down.addEventListener('click', () => {
      const clear = this.rating === -1;
      this.form.hidden = clear;
      void this.rate(clear ? 0 : -1);
      if (!clear) this.feedback.focus();
    });
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const words = this.feedback.value.trim();
      void this.rate(-1, words || undefined).then((ok) => {
        if (ok) this.form.hidden = true;
      });
    });
    this.form.append(this.feedback, this.send);
    this.group.append(this.up, this.down);
    this.el.append(this.toggle, this.list, this.group, this.form, this.status);
    this.setText();
    this.update(turn);
  }

  /** The turn again (its sources may have been read since). */
  update(turn: Turn): void {
    this.turn = turn;
    if (turn.sources === this.sources) return;
    this.sources = turn.sources;
    const shown = (turn.sources ?? []).filter((s) => s.title);
    this.list.replaceChildren(...shown.map((s) => this.item(s)));
    this.toggle.hidden = shown.length === 0;
    this.toggle.dataset.count = String(shown.length);
    this.setText();
  }

  /** The words of the UI language. */
  setText(): void {
    const t = this.text();
    this.toggle.textContent = t.t('sources.toggle', { n: Number(this.toggle.dataset.count ?? 0) });
    this.group.setAttribute('aria-label', t.t('rate.label'));
    this.up.setAttribute('aria-label', t.t('rate.up'));
    this.down.setAttribute('aria-label', t.t('rate.down'));
    this.feedback.setAttribute('aria-label', t.t('rate.feedback'));
    this.feedback.placeholder = t.t('rate.feedback');
    this.send.textContent = t.t('button.send');
    for (const button of this.list.querySelectorAll<HTMLElement>('[data-passage]')) button.textContent = t.t('sources.passage');
  }

  private item(source: Source): HTMLLIElement {
    const li = make('li', { part: 'source', 'data-testid': 'source' });
    const href = safeHref(source.url);
    // A link only for http(s): a javascript: or data: URL stays inert text (its title is shown, never the URL).
    li.append(href ? make('a', { part: 'source-link', href, target: '_blank', rel: 'noopener noreferrer' }, source.title) : make('span', { part: 'source-title' }, source.title));
    if (source.page && source.fileId && source.snippet) {
      const passage = make('p', { class: 'passage', part: 'source-passage', 'data-testid': 'source-passage', id: `kbv-passage-${++ids}` });
      passage.hidden = true;
      const button = make('button', { type: 'button', part: 'button passage-button', 'aria-expanded': 'false', 'aria-controls': passage.id, 'data-passage': '' }, this.text().t('sources.passage'));
      let asked = false;
      button.addEventListener('click', () => {
        const open = button.getAttribute('aria-expanded') !== 'true';
        button.setAttribute('aria-expanded', String(open));
        passage.hidden = !open;
        if (!open || asked) return;
        asked = true;
        void findPassage(this.actions, this.turn.messageId ?? '', { ...source, fileId: source.fileId!, page: source.page!, snippet: source.snippet! }).then(
          (found) => this.showPassage(passage, found),
          () => this.showPassage(passage, null),
        );
      });
      li.append(' ', button, passage);
    }
    return li;
  }

  private showPassage(passage: HTMLElement, found: { page: number; text: string } | null): void {
    const t = this.text();
    if (!found) passage.textContent = t.t('sources.noPassage');
    else passage.replaceChildren(`${t.t('sources.page', { page: found.page })}: `, make('mark', { part: 'source-highlight' }, found.text));
  }

  /** Sends a rating; the buttons show it at once and go back when it failed. */
  private async rate(rating: 1 | -1 | 0, feedback?: string): Promise<boolean> {
    const before = this.rating;
    this.show(rating);
    this.status.textContent = '';
    try {
      await this.actions.rate(this.turn.id, rating, feedback);
      if (feedback !== undefined) this.status.textContent = this.text().t('rate.thanks');
      return true;
    } catch (error) {
      if (this.rating === rating) this.show(before);
      const code = `error.${(error as { code?: string } | null)?.code}` as keyof WidgetMessageTable;
      this.status.textContent = this.text().table[code] ? this.text().t(code) : this.text().t('error.rating_failed');
      return false;
    }
  }

  private show(rating: 1 | -1 | 0): void {
    this.rating = rating;
    this.up.setAttribute('aria-pressed', String(rating === 1));
    this.down.setAttribute('aria-pressed', String(rating === -1));
  }
}

/** The sources UI of one widget: a block per answer, kept while the answer is shown. */
export class SourcesView {
  private readonly blocks = new Map<Turn['messageId'] | number, AnswerBlock>();

  /** `nonce`: the element's (see styleShadowRoot). */
  constructor(root: ShadowRoot, private readonly actions: SourcesActions, private readonly text: () => WidgetText, nonce = '') {
    styleShadowRoot(root, nonce, CSS);
  }

  /** The block under `turn`'s answer (made once per turn, then updated). */
  block(turn: Turn): HTMLElement {
    const key = turn.messageId || turn.id;
    let block = this.blocks.get(key);
    if (!block) this.blocks.set(key, (block = new AnswerBlock(turn, this.actions, this.text)));
    else block.update(turn);
    return block.el;
  }

  /** The UI language changed. */
  setText(): void {
    for (const block of this.blocks.values()) block.setText();
  }
}
