import type { AudioLevels } from '../client/events.js';

/** Each bar's age: the level it shows is this many level events old (newest in the middle, older outwards: a small waveform). */
const AGE_OF_BAR = [4, 2, 0, 1, 3];
/** Bars per voice. */
export const VISUALIZER_BARS = AGE_OF_BAR.length;
/** The level (0..1) above which a voice counts as speaking, for the still picture under reduced motion. */
const SPEAKING = 0.3;
/** A silent bar keeps this height, so the shape stays visible. */
const REST = 0.12;

/** The markup of the visualizer (static; the view inserts it). `aria-hidden`: the captions and the meter say the same in words. */
export function visualizerMarkup(): string {
  const bars = '<span part="visualizer-bar"></span>'.repeat(VISUALIZER_BARS);
  const voice = (name: 'caller' | 'assistant') =>
    `<span class="voice" part="visualizer-voice visualizer-${name}" data-voice="${name}" data-level="0" data-speaking="false">` +
    `<span class="bars">${bars}</span><span class="voice-name" data-name="${name}"></span></span>`;
  return `<div class="visualizer" part="visualizer" data-testid="visualizer" aria-hidden="true" data-active="false">${voice('caller')}${voice('assistant')}</div>`;
}

type Voice = 'caller' | 'assistant';

/**
 * The caller's and the assistant's voices as they are spoken, from the levels the session already
 * measures (its `level` event, ten times a second). It draws at most one animation frame per level
 * event, and none while the widget is off screen (IntersectionObserver), the tab is hidden (browsers
 * pause animation frames there) or no call is up: there is no loop of its own. Under
 * `prefers-reduced-motion: reduce` the bars stay still and `data-speaking` marks who speaks
 * (a colour change, no movement).
 */
export class VoiceVisualizer {
  private readonly history: Record<Voice, number[]> = { caller: [], assistant: [] };
  private readonly voices: Record<Voice, { el: HTMLElement; bars: HTMLElement[] }>;
  private readonly reduced: MediaQueryList | undefined;
  private visible = true;
  private live = false;
  private frame: number | undefined;

  constructor(private readonly root: HTMLElement) {
    const voice = (name: Voice) => {
      const el = root.querySelector<HTMLElement>(`[data-voice="${name}"]`)!;
      return { el, bars: [...el.querySelectorAll<HTMLElement>('[part="visualizer-bar"]')] };
    };
    this.voices = { caller: voice('caller'), assistant: voice('assistant') };
    const win = root.ownerDocument.defaultView;
    this.reduced = win?.matchMedia?.('(prefers-reduced-motion: reduce)');
    if (win && 'IntersectionObserver' in win) {
      // Observing holds no reference from the page to the widget: both go away together.
      new win.IntersectionObserver((entries) => {
        this.visible = entries.some((entry) => entry.isIntersecting);
        if (this.visible) this.schedule();
      }).observe(root);
    }
    this.draw();
  }

  /** Names the two voices (the UI language changed). */
  setNames(caller: string, assistant: string): void {
    for (const [name, words] of [['caller', caller], ['assistant', assistant]] as const) {
      const label = this.voices[name].el.querySelector<HTMLElement>('.voice-name')!;
      if (label.textContent !== words) label.textContent = words;
    }
  }

  /** A call is up (levels come) or not (the bars rest, nothing is drawn). */
  setLive(live: boolean): void {
    if (live === this.live) return;
    this.live = live;
    this.root.dataset.active = String(live);
    if (!live) {
      this.history.caller.length = this.history.assistant.length = 0;
      this.schedule();
    }
  }

  /** The session's latest levels (null: not measured, drawn as silence). */
  push(levels: AudioLevels): void {
    if (!this.live) return;
    remember(this.history.caller, levels.input ?? 0);
    remember(this.history.assistant, levels.output ?? 0);
    this.schedule();
  }

  private schedule(): void {
    if (this.frame !== undefined || !this.visible || typeof requestAnimationFrame === 'undefined') return;
    this.frame = requestAnimationFrame(() => {
      this.frame = undefined;
      this.draw();
    });
  }

  private draw(): void {
    const still = this.reduced?.matches === true;
    for (const name of ['caller', 'assistant'] as const) {
      const { el, bars } = this.voices[name];
      const levels = this.history[name];
      const level = levels.at(-1) ?? 0;
      el.dataset.level = level.toFixed(2);
      el.dataset.speaking = String(level >= SPEAKING);
      bars.forEach((bar, i) => {
        const value = still ? REST : Math.max(REST, levels.at(-1 - AGE_OF_BAR[i]!) ?? 0);
        // Written as the browser serializes it (no trailing zeros), so an unchanged bar is not written again.
        const transform = `scaleY(${Math.round(value * 1000) / 1000})`;
        if (bar.style.transform !== transform) bar.style.transform = transform;
      });
    }
  }
}

function remember(history: number[], level: number): void {
  history.push(Math.max(0, Math.min(1, level)));
  if (history.length > VISUALIZER_BARS) history.shift();
}
