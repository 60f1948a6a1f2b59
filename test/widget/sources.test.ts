// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/widget/index.js';
import type { KbVoiceWidget } from '../../src/widget/index.js';
import { safeHref } from '../../src/widget/sources-view.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// The widget's sources UI on kb-voice/testing's scripted service: what the service sends is shown
// as text (hostile titles, snippets and URLs stay inert), Show passage asks E9, the thumbs send E6,
// and sources="off" reads and shows nothing.

const mounted: KbVoiceWidget[] = [];
afterEach(async () => {
  for (const el of mounted.splice(0)) await el.end();
  document.body.replaceChildren();
});

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
/** Waits (event by event, no sleeping) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await flush();
  expect(check()).toBe(true);
}

const HOSTILE = { title: '<img src=x onerror="globalThis.pwned=1">', url: 'javascript:globalThis.pwned=1', file_id: 'f1', content: '<b>bold</b>' };
const PDF = { title: 'manual.pdf', url: 'https://example.com/manual.pdf', file_id: 'pdf-1', content: 'Do not immerse the base in water.', page: 2 };

async function connected(attributes: Record<string, string> = {}) {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock, sessionId: 'session-1' });
  let reads = 0;
  const highlights: unknown[] = [];
  const sessions = scripted.api.sessions;
  const api = {
    realtime: scripted.api.realtime,
    sessions: { ...sessions, message: (ai: string, id: string) => (reads++, sessions.message(ai, id)) },
    // E9 through the relay: under the robot, naming the message that cites the file
    pdf: { highlightCited: async (aiId: string, query: { message_id: string }, body: unknown) => (highlights.push({ aiId, query, body }), { success: true, positions: [{ page: 2, x: 1, y: 1, width: 1, height: 1 }] }) },
  };
  const el = document.createElement('kb-voice-widget');
  el.setAttribute('ai-id', 'robot-1');
  el.setAttribute('language', 'en');
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  el.sessionOptions = { ...scripted.sessionOptions, api };
  document.body.append(el);
  mounted.push(el);
  await el.start();
  await flush();
  const root = el.shadowRoot!;
  const all = (testId: string) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${testId}"]`)];
  return { clock, scripted, el, root, all, reads: () => reads, highlights };
}

describe('<kb-voice-widget> sources', () => {
  it('shows each answer\u2019s sources as inert text: no markup from titles, no javascript: link', async () => {
    const t = await connected();
    t.scripted.userSays('warranty?');
    t.scripted.reply('Two years.', { question: 'warranty?', sources: [HOSTILE, PDF, { nonsense: true }] });
    await until(() => t.all('source').length === 2);
    const [block] = t.all('sources');
    const toggle = block!.querySelector<HTMLButtonElement>('[part~="sources-toggle"]')!;
    expect(toggle.textContent).toBe('Sources (2)'); // the raw-only value shows nothing
    const list = block!.querySelector('ul')!;
    expect(list.hidden).toBe(true);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(toggle.getAttribute('aria-controls')).toBe(list.id);
    toggle.click();
    expect(list.hidden).toBe(false);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const [hostile, pdf] = t.all('source');
    expect(hostile!.textContent).toBe(HOSTILE.title);
    expect(hostile!.querySelector('img, a, b')).toBeNull();
    expect(t.root.querySelector('img')).toBeNull();
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
    const link = pdf!.querySelector('a')!;
    expect(link.getAttribute('href')).toBe(PDF.url);
    expect(link.target).toBe('_blank');
    expect(link.rel).toBe('noopener noreferrer');
    expect(hostile!.querySelector('[data-testid="source-passage"]')).toBeNull(); // not a PDF source
  });

  it('only http: and https: URLs become links', () => {
    expect(safeHref('https://example.com/a?b')).toBe('https://example.com/a?b');
    expect(safeHref('http://example.com/')).toBe('http://example.com/');
    for (const url of ['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,<script>', 'vbscript:x', '/relative', 'file:///etc/passwd', undefined, '']) {
      expect(safeHref(url), String(url)).toBeUndefined();
    }
  });

  it('Show passage asks E9 for a PDF source and shows the page and the highlighted sentence', async () => {
    const t = await connected();
    t.scripted.userSays('immerse?');
    t.scripted.reply('Do not immerse the base in water.', { question: 'immerse?', sources: [PDF] });
    await until(() => t.all('source').length === 1);
    const button = t.root.querySelector<HTMLButtonElement>('[part~="passage-button"]')!;
    const passage = t.all('source-passage')[0]!;
    expect(button.textContent).toBe('Show passage');
    expect(passage.hidden).toBe(true);
    button.click();
    await until(() => passage.querySelector('mark') !== null);
    expect(t.highlights).toEqual([{ aiId: expect.any(String), query: { message_id: expect.stringMatching(/\S/) }, body: { file_id: 'pdf-1', text: PDF.content, page: 2 } }]);
    expect(passage.hidden).toBe(false);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(passage.textContent).toBe('Page 2: Do not immerse the base in water.');
    expect(passage.querySelector('mark')!.textContent).toBe(PDF.content);
  });

  it('thumbs down with feedback sends E6 (source=widget); thumbs up then replaces it; named buttons with aria-pressed', async () => {
    const t = await connected();
    t.scripted.userSays('q');
    t.scripted.reply('a', { question: 'q', sources: [] });
    await until(() => t.all('rate-down').length === 1);
    const down = t.all('rate-down')[0]!;
    const up = t.all('rate-up')[0]!;
    expect(down.getAttribute('aria-label')).toBe('Not helpful');
    expect(up.getAttribute('aria-label')).toBe('Helpful');
    expect(t.root.querySelector('[part~="sources-toggle"]')!.hasAttribute('hidden')).toBe(true); // cites nothing: no Sources toggle
    down.click();
    expect(down.getAttribute('aria-pressed')).toBe('true');
    const feedback = t.all('feedback')[0] as HTMLInputElement;
    expect(feedback.closest('form')!.hidden).toBe(false);
    feedback.value = 'It was about another model';
    feedback.closest('form')!.requestSubmit();
    await until(() => t.scripted.api.ratings.length === 2);
    expect(t.scripted.api.ratings.map((r) => [r.query.rating, r.query.source, r.body?.feedback_content])).toEqual([[-1, 'widget', undefined], [-1, 'widget', 'It was about another model']]);
    await until(() => t.root.querySelector('[part="rating-status"]')!.textContent === 'Thanks for your feedback.');
    expect(feedback.closest('form')!.hidden).toBe(true);
    up.click();
    await until(() => t.scripted.api.ratings.length === 3);
    expect(up.getAttribute('aria-pressed')).toBe('true');
    expect(down.getAttribute('aria-pressed')).toBe('false');
    expect(t.scripted.api.messages.get('scripted-message-1')!.rating).toBe(1);
  });

  it('sources="off": nothing read after answers, no sources UI', async () => {
    const t = await connected({ sources: 'off' });
    t.scripted.userSays('q');
    t.scripted.reply('a', { question: 'q', sources: [PDF] });
    await t.clock.advance(10_000);
    await flush();
    expect(t.el.session!.turns).toHaveLength(1);
    expect(t.reads()).toBe(0);
    expect(t.all('sources')).toEqual([]);
    expect(t.el.session!.turns[0]!.sources).toBeUndefined();
  });

  it('Japanese strings', async () => {
    const t = await connected({ language: 'ja' });
    t.scripted.userSays('q');
    t.scripted.reply('a', { question: 'q', sources: [PDF] });
    await until(() => t.all('source').length === 1);
    expect(t.root.querySelector('[part~="sources-toggle"]')!.textContent).toBe('出典（1）');
    expect(t.all('rate-up')[0]!.getAttribute('aria-label')).toBe('役に立った');
    expect(t.root.querySelector('[part~="passage-button"]')!.textContent).toBe('該当箇所を表示');
  });
});
