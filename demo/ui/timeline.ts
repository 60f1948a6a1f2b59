import { clock, el } from './dom.js';

export type TimelineKind = 'state' | 'warmup' | 'speech' | 'info' | 'error';

/** An append-only log of what happened during calls, with wall-clock and relative timestamps. */
export class Timeline {
  #origin = performance.now();

  constructor(private readonly list: HTMLOListElement) {}

  /** Restarts the relative clock (at each call start). */
  mark(): void {
    this.#origin = performance.now();
  }

  add(kind: TimelineKind, text: string): void {
    const now = new Date();
    const rel = (performance.now() - this.#origin) / 1000;
    const item = el(
      'li',
      { 'data-testid': 'timeline-entry', 'data-kind': kind },
      el('time', { datetime: now.toISOString() }, clock(now)),
      el('span', { class: 'rel' }, `+${rel.toFixed(2)}s`),
      el('span', {}, text),
    );
    this.list.appendChild(item);
    this.list.scrollTop = this.list.scrollHeight;
  }
}
