/** What holds talk down: the pointer on the button, or a key. One hold at a time; only its own end releases it. */
type Hold = 'pointer' | ' ' | 'Enter';

/** Elements on which Space keeps its own meaning (typing, choosing, pressing another button). */
const SPACE_OWNERS = 'input, select, textarea, button, a[href]';

/**
 * The hold-to-talk button's input (push-to-talk): turns a held pointer or key into `talk(true)`
 * on press and `talk(false)` on release.
 * - Pointer: pointerdown with the main button (captured, so a finger sliding off still holds),
 *   released by pointerup, pointercancel, lostpointercapture or pointerleave.
 * - Keyboard: Space or Enter held on the focused button; Space also held anywhere else in the
 *   widget where Space has no meaning of its own (not in the text input, a device menu or on
 *   another button, which Space operates). Released by that key's keyup, or when the focus leaves
 *   the widget (a keyup elsewhere would never come).
 * - `cancel()`: the button became unusable (the call ended): a hold in progress is dropped.
 */
export class TalkControl {
  private hold: Hold | undefined;

  constructor(private readonly button: HTMLButtonElement, root: ShadowRoot, private readonly talk: (on: boolean) => void) {
    button.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      // Captured: the release comes here even when the pointer leaves the button meanwhile.
      button.setPointerCapture?.(event.pointerId);
      this.press('pointer');
    });
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture', 'pointerleave']) button.addEventListener(type, () => this.release('pointer'));
    // A long press on a touch screen would open the context menu instead of talking.
    button.addEventListener('contextmenu', (event) => event.preventDefault());
    root.addEventListener('keydown', (event) => this.keydown(event as KeyboardEvent));
    root.addEventListener('keyup', (event) => {
      const { key } = event as KeyboardEvent;
      if (key !== this.hold) return;
      event.preventDefault();
      this.release(key);
    });
    root.addEventListener('focusout', (event) => {
      if (this.hold === ' ' || this.hold === 'Enter') {
        if (!root.contains((event as FocusEvent).relatedTarget as Node | null)) this.release(this.hold);
      }
    });
  }

  /** Drops a hold in progress (the button was disabled or hidden). */
  cancel(): void {
    if (this.hold !== undefined) this.release(this.hold);
  }

  private keydown(event: KeyboardEvent): void {
    const { key } = event;
    if (key !== ' ' && key !== 'Enter') return;
    const target = event.composedPath()[0];
    const onButton = target === this.button;
    if (!onButton && (key === 'Enter' || (target instanceof Element && target.closest(SPACE_OWNERS)))) return;
    if (this.button.hidden || this.button.disabled) return;
    // No click (Enter), no page scroll (Space), and a held key's repeats do nothing.
    event.preventDefault();
    if (!event.repeat) this.press(key);
  }

  private press(hold: Hold): void {
    if (this.hold !== undefined || this.button.disabled) return;
    this.hold = hold;
    this.talk(true);
  }

  private release(hold: Hold): void {
    if (this.hold !== hold) return;
    this.hold = undefined;
    this.talk(false);
  }
}
