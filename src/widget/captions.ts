import type { Turn } from '../client/events.js';
import type { SessionSnapshot } from '../client/snapshot.js';

/** Finished turns kept on screen; older captions leave the DOM (the session keeps every turn). */
const MAX_TURNS_SHOWN = 20;

/** The captions log: one caption per side and turn, each node made once and updated in place. */
export class Captions {
  private readonly nodes = new Map<string, HTMLElement>();
  private names = { user: 'You:', assistant: 'Assistant:' };
  /** Blocks shown under finished answers (the sources UI), by caption key. */
  private readonly extras = new Map<string, HTMLElement>();
  /** Makes (or updates) the block under a finished answer; undefined: none (`sources="off"`). */
  extra: ((turn: Turn) => HTMLElement) | undefined;

  constructor(private readonly log: HTMLElement) {}

  /** Who said a caption, in the UI language (every caption shown is renamed). */
  setNames(user: string, assistant: string): void {
    this.names = { user, assistant };
    for (const node of this.nodes.values()) {
      (node.firstChild as HTMLElement).textContent = this.names[node.dataset.role === 'user' ? 'user' : 'assistant'];
    }
  }

  /** Finished turns and the turn in progress, one caption per side, updated in place (the log announces changes only). */
  render(snapshot: SessionSnapshot | undefined): void {
    const wanted: Array<{ key: string; turn: number; role: 'user' | 'assistant'; text: string; final: boolean; input?: string; done?: Turn }> = [];
    for (const turn of snapshot?.turns.slice(-MAX_TURNS_SHOWN) ?? []) {
      wanted.push({ key: `${turn.id}:user`, turn: turn.id, role: 'user', text: turn.question, final: true, input: turn.input });
      if (turn.answer) wanted.push({ key: `${turn.id}:assistant`, turn: turn.id, role: 'assistant', text: turn.answer, final: true, input: turn.input, done: turn });
    }
    const current = snapshot?.live;
    if (current && !snapshot.turns.some((t) => t.id === current.turnId)) {
      if (current.user) wanted.push({ key: `${current.turnId}:user`, turn: current.turnId, role: 'user', text: current.user, final: false });
      if (current.assistant) wanted.push({ key: `${current.turnId}:assistant`, turn: current.turnId, role: 'assistant', text: current.assistant, final: false });
    }
    const keep = new Set(wanted.map((w) => w.key));
    for (const [key, node] of this.nodes) {
      if (!keep.has(key)) {
        node.remove();
        this.nodes.delete(key);
      }
    }
    for (const [key, node] of this.extras) {
      if (!this.extra || !keep.has(key)) {
        node.remove();
        this.extras.delete(key);
      }
    }
    let previous: HTMLElement | undefined;
    for (const want of wanted) {
      let node = this.nodes.get(want.key);
      if (!node) {
        node = document.createElement('p');
        node.className = 'caption';
        node.setAttribute('part', `caption caption-${want.role}`);
        node.dataset.testid = 'caption';
        node.dataset.role = want.role;
        node.dataset.turn = String(want.turn);
        const who = document.createElement('span');
        who.className = 'who';
        who.textContent = this.names[want.role];
        node.append(who, document.createElement('span'));
        this.nodes.set(want.key, node);
      }
      if (previous ? previous.nextSibling !== node : this.log.firstChild !== node) {
        if (previous) previous.after(node);
        else this.log.prepend(node);
      }
      const text = node.lastChild as HTMLElement;
      if (text.textContent !== want.text) text.textContent = want.text;
      node.dataset.final = String(want.final);
      if (want.input) node.dataset.input = want.input;
      previous = node;
      const block = want.done && this.extra?.(want.done);
      if (block) {
        this.extras.set(want.key, block);
        if (previous.nextSibling !== block) previous.after(block);
        previous = block;
      }
    }
    if (wanted.length > 0) this.log.scrollTop = this.log.scrollHeight;
  }

}
