import type { Turn } from '../client/events.js';
import type { SessionSnapshot } from '../client/snapshot.js';
import type { SessionStatus } from '../client/state.js';
import { WIDGET_CSS } from './styles.js';

/**
 * The status words of the QA page (CONTRACT.md): `reconnecting` shows as `connecting`, and `ending`
 * (the assistant finishes its sentence) as `connected`: the call is still up. The element's
 * `data-status` has the real status, and the End button says "Ending…" meanwhile.
 */
const STATUS_WORDS: Record<SessionStatus, string> = {
  idle: 'idle', connecting: 'connecting', reconnecting: 'connecting', connected: 'connected', ending: 'connected', ended: 'ended', failed: 'failed',
};

/** Finished turns kept on screen; older captions leave the DOM (the session keeps every turn). */
const MAX_TURNS_SHOWN = 20;

// Static markup only: everything that comes from the network is set with textContent.
const TEMPLATE = `
<style>${WIDGET_CSS}</style>
<section class="panel" part="panel" aria-labelledby="kbv-title">
  <div class="head">
    <span class="title" part="title" id="kbv-title">Voice assistant</span>
    <span class="status" part="status" role="status" data-testid="call-status" data-status="idle">idle</span>
    <span class="quality" part="quality" role="img" data-testid="call-quality" aria-label="Call quality: poor. Your voice or the answer may break up." hidden>Poor connection</span>
  </div>
  <div class="controls" part="controls">
    <button type="button" class="primary" part="button start-button" data-testid="call-start">Start call</button>
    <button type="button" part="button end-button" data-testid="call-end" disabled>End call</button>
    <button type="button" part="button mute-button" data-testid="mute-toggle" aria-pressed="false" disabled>Mute</button>
    <button type="button" part="button sound-button" data-testid="playback-resume" hidden>Enable sound</button>
  </div>
  <div class="level" part="level">
    <span id="kbv-level-label" data-testid="mic-status">Microphone</span>
    <span class="meter" part="meter" role="meter" aria-labelledby="kbv-level-label" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0" data-testid="input-level" data-value="0"><span part="meter-bar"></span></span>
  </div>
  <div class="captions" part="captions" role="log" aria-live="polite" aria-label="Captions" tabindex="0" data-empty="Captions of the call appear here."></div>
  <p class="latency" part="latency" data-testid="latency"></p>
  <form part="form" autocomplete="off">
    <input type="text" part="input" data-testid="text-input" aria-label="Type a question" placeholder="Type a question…" maxlength="4000" disabled />
    <button type="submit" part="button send-button" data-testid="text-send" disabled>Send</button>
  </form>
  <p class="error" part="error" role="alert" data-testid="error" hidden></p>
</section>`;

export interface ViewActions {
  start(): void;
  end(): void;
  toggleMute(): void;
  resumePlayback(): void;
  send(text: string): void;
}

/** The widget's shadow DOM: built once, then updated from session snapshots (never re-created). */
export class WidgetView {
  private readonly el: {
    status: HTMLElement; start: HTMLButtonElement; end: HTMLButtonElement; mute: HTMLButtonElement; sound: HTMLButtonElement;
    meter: HTMLElement; micLabel: HTMLElement; quality: HTMLElement; bar: HTMLElement; captions: HTMLElement; latency: HTMLElement; form: HTMLFormElement;
    input: HTMLInputElement; send: HTMLButtonElement; error: HTMLElement;
  };
  private readonly captionNodes = new Map<string, HTMLElement>();
  private shownLevel: number | null = -1;
  /** Focus was dropped by a control that got disabled and awaits a control to take it (see update). */
  private focusToHandOver = false;

  constructor(private readonly root: ShadowRoot, actions: ViewActions) {
    root.innerHTML = TEMPLATE;
    const q = <T extends Element = HTMLElement>(selector: string) => root.querySelector(selector) as T;
    this.el = {
      status: q('[data-testid="call-status"]'), start: q('[data-testid="call-start"]'), end: q('[data-testid="call-end"]'),
      mute: q('[data-testid="mute-toggle"]'), sound: q('[data-testid="playback-resume"]'), meter: q('[role="meter"]'), micLabel: q('#kbv-level-label'), quality: q('[data-testid="call-quality"]'),
      bar: q('[part="meter-bar"]'), captions: q('.captions'), latency: q('.latency'), form: q('form'),
      input: q('[data-testid="text-input"]'), send: q('[data-testid="text-send"]'), error: q('[data-testid="error"]'),
    };
    this.el.start.addEventListener('click', () => actions.start());
    this.el.end.addEventListener('click', () => actions.end());
    this.el.mute.addEventListener('click', () => actions.toggleMute());
    this.el.sound.addEventListener('click', () => actions.resumePlayback());
    this.el.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.el.input.value.trim();
      if (text) actions.send(text);
    });
  }

  /** Shows a snapshot (undefined: no call yet). */
  update(snapshot: SessionSnapshot | undefined): void {
    const focused = this.root.activeElement;
    const status = snapshot?.status ?? 'idle';
    const live = status === 'connecting' || status === 'connected' || status === 'reconnecting';
    const { el } = this;
    if (el.status.dataset.status !== status) {
      el.status.dataset.status = status;
      el.status.textContent = STATUS_WORDS[status];
    }
    const ending = status === 'ending';
    el.start.disabled = live || ending;
    el.end.disabled = !live;
    const endWords = ending ? 'Ending\u2026' : 'End call';
    if (el.end.textContent !== endWords) el.end.textContent = endWords;
    el.mute.disabled = !live;
    const muted = snapshot?.muted ?? false;
    el.mute.setAttribute('aria-pressed', String(muted));
    // One name, its state in aria-pressed (a toggle whose name also flips reads as a contradiction);
    // the meter's label says it in words for everyone.
    const micWords = muted ? 'Microphone muted' : 'Microphone';
    if (el.micLabel.textContent !== micWords) el.micLabel.textContent = micWords;
    el.sound.hidden = !(live && snapshot?.playbackBlocked);
    // Shown only while the call is poor: a warning, not a dashboard.
    const level = live ? snapshot?.quality.level ?? 'unknown' : 'unknown';
    el.quality.hidden = level !== 'poor';
    el.quality.dataset.level = level;
    el.input.disabled = el.send.disabled = status !== 'connected';
    if (!live) this.setLevel(0);
    this.renderCaptions(snapshot);
    this.renderLatency(snapshot?.turns ?? []);
    // A control that just got disabled or hidden would drop keyboard focus to the page: hand it on.
    // While the call is `ending` both Start and End are disabled: the hand-over waits for Start to
    // come back, unless the user has put the focus somewhere else meanwhile.
    const lost = focused instanceof HTMLElement && ((focused as HTMLButtonElement).disabled === true || focused.hidden);
    const doc = this.root.ownerDocument;
    const nowhere = doc.activeElement === null || doc.activeElement === doc.body;
    this.focusToHandOver = lost || (this.focusToHandOver && nowhere);
    if (this.focusToHandOver) {
      const target = live ? el.end : el.start;
      if (!target.disabled) {
        target.focus();
        this.focusToHandOver = false;
      }
    }
  }

  /** The microphone level, 0..1 (ten times a second while a call is up); null when it cannot be measured. */
  setLevel(level: number | null): void {
    const percent = level === null ? null : Math.round(Math.max(0, Math.min(1, level)) * 100);
    if (percent === this.shownLevel) return;
    this.shownLevel = percent;
    this.el.bar.style.transform = `scaleX(${(percent ?? 0) / 100})`;
    this.el.meter.setAttribute('aria-valuenow', String(percent ?? 0));
    // A meter that cannot measure says so, rather than showing silence.
    if (percent === null) this.el.meter.setAttribute('aria-valuetext', 'not measured');
    else this.el.meter.removeAttribute('aria-valuetext');
    this.el.meter.dataset.value = percent === null ? '' : String(percent / 100);
  }

  /** Shows a sentence in the error box; undefined hides it. */
  showError(text: string | undefined): void {
    if ((this.el.error.textContent ?? '') === (text ?? '') && this.el.error.hidden === !text) return;
    this.el.error.textContent = text ?? '';
    this.el.error.hidden = !text;
  }

  /** Empties the question box once it was sent. */
  clearInput(): void {
    this.el.input.value = '';
  }

  /** Finished turns and the turn in progress, one caption per side, updated in place (the log announces changes only). */
  private renderCaptions(snapshot: SessionSnapshot | undefined): void {
    const wanted: Array<{ key: string; turn: number; role: 'user' | 'assistant'; text: string; final: boolean; input?: string }> = [];
    for (const turn of snapshot?.turns.slice(-MAX_TURNS_SHOWN) ?? []) {
      wanted.push({ key: `${turn.id}:user`, turn: turn.id, role: 'user', text: turn.question, final: true, input: turn.input });
      if (turn.answer) wanted.push({ key: `${turn.id}:assistant`, turn: turn.id, role: 'assistant', text: turn.answer, final: true, input: turn.input });
    }
    const current = snapshot?.live;
    if (current && !snapshot.turns.some((t) => t.id === current.turnId)) {
      if (current.user) wanted.push({ key: `${current.turnId}:user`, turn: current.turnId, role: 'user', text: current.user, final: false });
      if (current.assistant) wanted.push({ key: `${current.turnId}:assistant`, turn: current.turnId, role: 'assistant', text: current.assistant, final: false });
    }
    const keep = new Set(wanted.map((w) => w.key));
    for (const [key, node] of this.captionNodes) {
      if (!keep.has(key)) {
        node.remove();
        this.captionNodes.delete(key);
      }
    }
    let previous: HTMLElement | undefined;
    for (const want of wanted) {
      let node = this.captionNodes.get(want.key);
      if (!node) {
        node = document.createElement('p');
        node.className = 'caption';
        node.setAttribute('part', `caption caption-${want.role}`);
        node.dataset.testid = 'caption';
        node.dataset.role = want.role;
        node.dataset.turn = String(want.turn);
        const who = document.createElement('span');
        who.className = 'who';
        who.textContent = want.role === 'user' ? 'You:' : 'Assistant:';
        node.append(who, document.createElement('span'));
        this.captionNodes.set(want.key, node);
      }
      if (previous ? previous.nextSibling !== node : this.el.captions.firstChild !== node) {
        if (previous) previous.after(node);
        else this.el.captions.prepend(node);
      }
      const text = node.lastChild as HTMLElement;
      if (text.textContent !== want.text) text.textContent = want.text;
      node.dataset.final = String(want.final);
      if (want.input) node.dataset.input = want.input;
      previous = node;
    }
    if (wanted.length > 0) this.el.captions.scrollTop = this.el.captions.scrollHeight;
  }

  /** The latency of the last answer that was heard (a turn cut before its audio has none). */
  private renderLatency(turns: readonly Turn[]): void {
    let ms: number | null = null;
    for (let i = turns.length - 1; i >= 0 && ms === null; i--) ms = turns[i]!.firstResponseMs;
    const after = ms === null ? '' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
    const text = ms === null ? '' : `Last answer started ${after} after the question.`;
    if (this.el.latency.textContent === text) return;
    this.el.latency.textContent = text;
    if (ms === null) delete this.el.latency.dataset.ms;
    else this.el.latency.dataset.ms = String(ms);
  }
}
