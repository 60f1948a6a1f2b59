import type { Turn } from '../client/events.js';
import type { SessionSnapshot } from '../client/snapshot.js';
import type { SessionStatus } from '../client/state.js';
import type { AudioLevels } from '../client/events.js';
import type { WidgetMessageTable } from './messages.js';
import { WidgetText } from './locale.js';
import { styleShadowRoot } from './styles.js';
import { Captions } from './captions.js';
import { visualizerMarkup, VoiceVisualizer } from './visualizer.js';
import { TalkControl } from './talk-control.js';
import type { SourcesActions, SourcesView } from './sources-view.js';

/**
 * The status words' keys (`data-status` keeps the QA page's English words, CONTRACT.md):
 * `reconnecting` shows as `connecting`, and `ending` (the assistant finishes its sentence) as
 * `connected`: the call is still up. The element's `data-status` has the real status, and the End
 * button says "Ending…" meanwhile.
 */
const STATUS_WORDS: Record<SessionStatus, keyof WidgetMessageTable> = {
  idle: 'status.idle', connecting: 'status.connecting', reconnecting: 'status.connecting', connected: 'status.connected',
  ending: 'status.connected', ended: 'status.ended', failed: 'status.failed',
};

// Static markup only, no words: every string comes from the message table (setText), everything from
// the network is set with textContent. The talk button and its hint show in push-to-talk mode only.
// No <style> here: styleShadowRoot adopts the stylesheet (inline style is what a strict CSP blocks).
const TEMPLATE = `
<section class="panel" part="panel" aria-labelledby="kbv-title">
  <div class="head">
    <span class="title" part="title" id="kbv-title"></span>
    <span class="status" part="status" role="status" data-testid="call-status" data-status="idle"></span>
    <span class="quality" part="quality" role="img" data-testid="call-quality" hidden></span>
  </div>
  <div class="controls" part="controls">
    <button type="button" class="primary" part="button start-button" data-testid="call-start"></button>
    <button type="button" part="button end-button" data-testid="call-end" disabled></button>
    <button type="button" part="button mute-button" data-testid="mute-toggle" aria-pressed="false"></button>
    <button type="button" part="button sound-button" data-testid="playback-resume" hidden></button>
    <button type="button" part="button type-button" data-testid="type-instead" hidden></button>
    <button type="button" class="talk" part="button talk-button" data-testid="talk" aria-pressed="false" aria-describedby="kbv-talk-hint" disabled hidden></button>
    <button type="button" part="button check-button" data-testid="check-start" aria-controls="kbv-check"></button>
  </div>
  <div class="check" part="check-result" id="kbv-check" data-testid="check-result" role="status" aria-live="polite" hidden></div>
  <p class="hint" part="talk-hint" id="kbv-talk-hint" data-testid="talk-hint" aria-live="polite" hidden></p>
  <p class="hint" part="listening" data-testid="listening" role="status" hidden></p>
  <div class="level" part="level">
    <span id="kbv-level-label" data-testid="mic-status"></span>
    <span class="meter" part="meter" role="meter" aria-labelledby="kbv-level-label" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0" data-testid="input-level" data-value="0"><span part="meter-bar"></span></span>
  </div>
  ${visualizerMarkup()}
  <div class="devices" part="devices" hidden>
    <label><span data-label="mic"></span> <select part="select" data-testid="mic-select"></select></label>
    <label><span data-label="speaker"></span> <select part="select" data-testid="speaker-select"></select></label>
  </div>
  <div class="captions" part="captions" role="log" aria-live="polite" tabindex="0"></div>
  <p class="latency" part="latency" data-testid="latency"></p>
  <form part="form" autocomplete="off">
    <input type="text" part="input" data-testid="text-input" maxlength="4000" disabled />
    <button type="submit" part="button send-button" data-testid="text-send" disabled></button>
  </form>
  <p class="error" part="error" role="alert" data-testid="error" hidden></p>
</section>`;

export interface ViewActions extends SourcesActions {
  start(): void;
  end(): void;
  toggleMute(): void;
  resumePlayback(): void;
  send(text: string): void;
  setInput(deviceId: string): void;
  setOutput(deviceId: string): void;
  /** Start again without the microphone (offered when it was refused). */
  typeInstead(): void;
  /** Push-to-talk: the talk button (or Space) is held down (true) or let go (false). */
  talk(on: boolean): void;
  /** "Test my setup": the pre-call check (kb-voice/check), shown in the `check-result` panel. */
  check(): void;
}

/** How the view shows a call: `textOnly` (no microphone), `pushToTalk` (the talk button is offered), `sources` (the sources UI under answers). */
export interface ViewMode {
  textOnly?: boolean;
  pushToTalk?: boolean;
  sources?: boolean;
}

/** Whether this browser can choose the output device (`setSinkId`). */
const canPickOutput = () => typeof HTMLMediaElement !== 'undefined' && 'setSinkId' in HTMLMediaElement.prototype;

/** The widget's shadow DOM: built once, then updated from session snapshots (never re-created). */
export class WidgetView {
  private readonly el: {
    panel: HTMLElement; title: HTMLElement; status: HTMLElement; start: HTMLButtonElement; end: HTMLButtonElement; mute: HTMLButtonElement; sound: HTMLButtonElement;
    meter: HTMLElement; micLabel: HTMLElement; quality: HTMLElement; bar: HTMLElement; captions: HTMLElement; latency: HTMLElement; form: HTMLFormElement;
    input: HTMLInputElement; send: HTMLButtonElement; error: HTMLElement; typeInstead: HTMLButtonElement;
    devices: HTMLElement; mic: HTMLSelectElement; speaker: HTMLSelectElement; micName: HTMLElement; speakerName: HTMLElement;
    talk: HTMLButtonElement; hint: HTMLElement; check: HTMLButtonElement; checkResult: HTMLElement; listening: HTMLElement;
  };
  private readonly talkControl: TalkControl;
  private readonly visualizer: VoiceVisualizer;
  /** The words of the UI language (setText); English until the element sets them. */
  private text = new WidgetText('en');
  private readonly captions: Captions;
  private shownLevel: number | null = -1;
  /** Focus was dropped by a control that got disabled and awaits a control to take it (see update). */
  private focusToHandOver = false;
  /** The sources UI, loaded the first time it is on (its own module: a page with `sources="off"` never loads it). */
  private sources: SourcesView | 'loading' | undefined;
  private shown: SessionSnapshot | undefined;
  private sourcesOn = false;

  /** `nonce`: the element's, for the `<style>` of browsers without constructable stylesheets. */
  constructor(private readonly root: ShadowRoot, private readonly actions: ViewActions, private readonly nonce = '') {
    root.innerHTML = TEMPLATE;
    styleShadowRoot(root, nonce);
    const q = <T extends Element = HTMLElement>(selector: string) => root.querySelector(selector) as T;
    this.el = {
      panel: q('.panel'), title: q('.title'), status: q('[data-testid="call-status"]'), start: q('[data-testid="call-start"]'), end: q('[data-testid="call-end"]'),
      mute: q('[data-testid="mute-toggle"]'), sound: q('[data-testid="playback-resume"]'), meter: q('[role="meter"]'), micLabel: q('#kbv-level-label'), quality: q('[data-testid="call-quality"]'),
      bar: q('[part="meter-bar"]'), captions: q('.captions'), latency: q('.latency'), form: q('form'),
      input: q('[data-testid="text-input"]'), send: q('[data-testid="text-send"]'), error: q('[data-testid="error"]'),
      typeInstead: q('[data-testid="type-instead"]'), devices: q('.devices'), mic: q('[data-testid="mic-select"]'), speaker: q('[data-testid="speaker-select"]'),
      micName: q('[data-label="mic"]'), speakerName: q('[data-label="speaker"]'), talk: q('[data-testid="talk"]'), hint: q('.hint'), listening: q('[data-testid="listening"]'),
      check: q('[data-testid="check-start"]'), checkResult: q('[data-testid="check-result"]'),
    };
    this.talkControl = new TalkControl(this.el.talk, root, (on) => actions.talk(on));
    this.visualizer = new VoiceVisualizer(q('.visualizer'));
    this.captions = new Captions(this.el.captions);
    this.setText(this.text);
    this.el.typeInstead.addEventListener('click', () => actions.typeInstead());
    this.el.mic.addEventListener('change', () => actions.setInput(this.el.mic.value));
    this.el.speaker.addEventListener('change', () => actions.setOutput(this.el.speaker.value));
    this.el.start.addEventListener('click', () => actions.start());
    this.el.check.addEventListener('click', () => actions.check());
    this.el.end.addEventListener('click', () => actions.end());
    this.el.mute.addEventListener('click', () => actions.toggleMute());
    this.el.sound.addEventListener('click', () => actions.resumePlayback());
    this.el.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.el.input.value.trim();
      if (text) actions.send(text);
    });
  }

  /** Puts the static words of a UI language in place (the element then shows its snapshot again for the rest). */
  setText(text: WidgetText): void {
    this.text = text;
    const { el } = this;
    const set = (node: HTMLElement, key: keyof WidgetMessageTable) => {
      const words = text.t(key);
      if (node.textContent !== words) node.textContent = words;
    };
    el.panel.lang = text.language;
    set(el.title, 'title');
    set(el.quality, 'quality.poor');
    el.quality.setAttribute('aria-label', text.t('quality.poorLabel'));
    set(el.start, 'button.start');
    set(el.mute, 'button.mute');
    set(el.sound, 'button.sound');
    set(el.typeInstead, 'button.typeInstead');
    set(el.send, 'button.send');
    set(el.talk, 'button.talk');
    set(el.check, 'button.check');
    set(el.hint, 'talk.hint');
    set(el.listening, 'listening');
    set(el.micName, 'devices.microphone');
    set(el.speakerName, 'devices.speaker');
    el.captions.setAttribute('aria-label', text.t('captions.label'));
    el.captions.dataset.empty = text.t('captions.empty');
    el.input.setAttribute('aria-label', text.t('input.label'));
    el.input.placeholder = text.t('input.placeholder');
    this.visualizer.setNames(text.t('visualizer.caller'), text.t('visualizer.assistant'));
    el.status.textContent = text.t(STATUS_WORDS[(el.status.dataset.status ?? 'idle') as SessionStatus] ?? 'status.idle');
    if (this.shownLevel === null) el.meter.setAttribute('aria-valuetext', text.t('level.notMeasured'));
    this.captions.setNames(text.t('captions.you'), text.t('captions.assistant'));
    if (typeof this.sources === 'object') this.sources.setText();
  }

  /** Turns the sources UI under answers on or off; the first time on, its module is loaded. */
  private showSources(on: boolean): void {
    const view = this.sources;
    this.sourcesOn = on;
    this.captions.extra = on && typeof view === 'object' ? (turn) => view.block(turn) : undefined;
    if (!on || view) return;
    this.sources = 'loading';
    void import('./sources-view.js').then((m) => {
      const loaded = (this.sources = new m.SourcesView(this.root, this.actions, () => this.text, this.nonce));
      if (!this.sourcesOn) return;
      this.captions.extra = (turn) => loaded.block(turn);
      this.captions.render(this.shown);
    });
  }

  /** The session's levels: the meter shows the microphone, the visualizer both voices. */
  setLevels(levels: AudioLevels): void {
    this.setLevel(levels.input);
    this.visualizer.push(levels);
  }

  /** Shows a snapshot (undefined: no call yet) in a {@link ViewMode}. */
  update(snapshot: SessionSnapshot | undefined, { textOnly = false, pushToTalk = false, sources = false }: ViewMode = {}): void {
    this.shown = snapshot;
    this.showSources(sources);
    const focused = this.root.activeElement;
    const status = snapshot?.status ?? 'idle';
    const live = status === 'connecting' || status === 'connected' || status === 'reconnecting';
    const { el } = this;
    const statusWords = this.text.t(STATUS_WORDS[status]);
    el.status.dataset.status = status;
    if (el.status.textContent !== statusWords) el.status.textContent = statusWords;
    const ending = status === 'ending';
    el.start.disabled = live || ending;
    // The check opens the microphone and may make a test call: not during a call, nor twice at once.
    el.check.disabled = live || ending || el.checkResult.getAttribute('aria-busy') === 'true';
    el.end.disabled = !live;
    const endWords = this.text.t(ending ? 'button.ending' : 'button.end');
    if (el.end.textContent !== endWords) el.end.textContent = endWords;
    // Usable before a call too: the next call starts muted (as with the React hook). Not in a call
    // without a microphone, nor while it ends.
    el.mute.disabled = (live && textOnly) || ending;
    const refused = status === 'failed' && /^microphone_(denied|unavailable)$/.test(snapshot?.error?.code ?? '');
    el.typeInstead.hidden = !refused;
    this.renderDevices(live ? snapshot?.devices : undefined, textOnly);
    const muted = snapshot?.muted ?? false;
    el.mute.setAttribute('aria-pressed', String(muted));
    // One name, its state in aria-pressed (a toggle whose name also flips reads as a contradiction);
    // the meter's label says it in words for everyone.
    // Push-to-talk: offered before a call too (disabled), usable while connected with a microphone.
    const talking = snapshot?.talking ?? false;
    el.talk.hidden = el.hint.hidden = !pushToTalk || (live && textOnly);
    el.talk.disabled = status !== 'connected' || textOnly;
    if (el.talk.hidden || el.talk.disabled) this.talkControl.cancel();
    el.talk.setAttribute('aria-pressed', String(talking));
    el.panel.dataset.talking = String(talking);
    const micWords = this.text.t(muted ? 'level.microphoneMuted' : talking ? 'level.talking' : 'level.microphone');
    if (el.micLabel.textContent !== micWords) el.micLabel.textContent = micWords;
    el.sound.hidden = !(live && snapshot?.playbackBlocked);
    // Shown only while the call is poor: a warning, not a dashboard.
    const level = live ? snapshot?.quality.level ?? 'unknown' : 'unknown';
    el.quality.hidden = level !== 'poor';
    el.quality.dataset.level = level;
    el.input.disabled = el.send.disabled = status !== 'connected';
    // The cue to speak: connected, nothing asked yet, the caller not speaking (what was said while
    // connecting is heard anyway where the service takes pre-connect audio, docs/widget.md).
    el.listening.hidden = status !== 'connected' || textOnly || (snapshot?.turns.length ?? 0) > 0 || (snapshot?.userSpeaking ?? false) || snapshot?.live != null;
    if (!live) this.setLevel(0);
    this.visualizer.setLive(live);
    this.captions.render(snapshot);
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

  /** The device menu: inputs (not for a text-only call) and, where the browser can route audio, outputs. */
  private renderDevices(devices: SessionSnapshot['devices'], textOnly: boolean): void {
    const { mic, speaker } = this.el;
    const unnamed = (n: number) => this.text.t('devices.unnamed', { n });
    fill(mic, textOnly ? [] : devices?.inputs ?? [], unnamed);
    fill(speaker, canPickOutput() ? devices?.outputs ?? [] : [], unnamed);
    mic.parentElement!.hidden = mic.options.length === 0;
    speaker.parentElement!.hidden = speaker.options.length === 0;
    this.el.devices.hidden = mic.options.length + speaker.options.length === 0;
  }

  /** The microphone level, 0..1 (ten times a second while a call is up); null when it cannot be measured. */
  setLevel(level: number | null): void {
    const percent = level === null ? null : Math.round(Math.max(0, Math.min(1, level)) * 100);
    if (percent === this.shownLevel) return;
    this.shownLevel = percent;
    this.el.bar.style.transform = `scaleX(${(percent ?? 0) / 100})`;
    this.el.meter.setAttribute('aria-valuenow', String(percent ?? 0));
    // A meter that cannot measure says so, rather than showing silence.
    if (percent === null) this.el.meter.setAttribute('aria-valuetext', this.text.t('level.notMeasured'));
    else this.el.meter.removeAttribute('aria-valuetext');
    this.el.meter.dataset.value = percent === null ? '' : String(percent / 100);
  }

  /** Shows a sentence in the error box; undefined hides it. */
  showError(text: string | undefined): void {
    if ((this.el.error.textContent ?? '') === (text ?? '') && this.el.error.hidden === !text) return;
    this.el.error.textContent = text ?? '';
    this.el.error.hidden = !text;
  }

  /**
   * The check panel: `running` (the button disabled, the panel says so), or done (the panel was
   * filled by check-panel.ts's renderCheck). Returns the panel for that.
   */
  checking(running: boolean): HTMLElement {
    const panel = this.el.checkResult;
    panel.setAttribute('aria-busy', String(running));
    this.el.check.disabled = running;
    if (running) {
      panel.hidden = false;
      delete panel.dataset.grade;
      panel.textContent = this.text.t('check.running');
    }
    return panel;
  }

  /** Empties the question box once it was sent. */
  clearInput(): void {
    this.el.input.value = '';
  }

  /**
   * Push-to-talk: after a hold the service did not hear, the hint says so ("I didn't catch that");
   * the next hold, or a heard one, brings the hint back.
   */
  showTalkOutcome(heard: boolean): void {
    const words = this.text.t(heard ? 'talk.hint' : 'talk.notHeard');
    if (this.el.hint.textContent !== words) this.el.hint.textContent = words;
    this.el.hint.dataset.heard = String(heard);
  }

  /** The latency of the last answer that was heard (a turn cut before its audio has none). */
  private renderLatency(turns: readonly Turn[]): void {
    let ms: number | null = null;
    for (let i = turns.length - 1; i >= 0 && ms === null; i--) ms = turns[i]!.firstResponseMs;
    const text = ms === null ? '' : this.text.t('latency', { time: this.text.latency(ms) });
    if (this.el.latency.textContent === text) return;
    this.el.latency.textContent = text;
    if (ms === null) delete this.el.latency.dataset.ms;
    else this.el.latency.dataset.ms = String(ms);
  }
}

/** Replaces a select's options when the device list changed, keeping the chosen one. */
function fill(select: HTMLSelectElement, devices: readonly { deviceId: string; label: string }[], unnamed: (n: number) => string): void {
  const key = devices.map((d, i) => `${d.deviceId}\u0000${d.label || unnamed(i + 1)}`).join('\u0001');
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const chosen = select.value;
  select.replaceChildren(...devices.map((d, i) => new Option(d.label || unnamed(i + 1), d.deviceId)));
  if (devices.some((d) => d.deviceId === chosen)) select.value = chosen;
}
