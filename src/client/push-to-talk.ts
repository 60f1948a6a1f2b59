import type { SessionEffect } from './effects.js';
import type { Clock } from '../clock.js';

/** Push-to-talk states: `idle` (microphone closed), `talking`, `committing` (released; the tail still travels). */
export type TalkState = 'idle' | 'talking' | 'committing';

/** What each `talk()` input does in each state: the next state (undefined: nothing happens). */
export const TALK_TRANSITIONS: Readonly<Record<TalkState, Readonly<Partial<Record<'press' | 'release' | 'tailSent' | 'stop', TalkState>>>>> = {
  idle: { press: 'talking', stop: 'idle' },
  talking: { release: 'committing', stop: 'idle' },
  committing: { press: 'talking', tailSent: 'idle', stop: 'idle' },
};

/** What push-to-talk drives (the session's microphone and attempt). */
export interface TalkEffects {
  /** Opens or closes the microphone at its source. */
  setOpen(open: boolean): void;
  /** Cuts the answer under way (the caller pressed talk over it). */
  interruptAnswer(): void;
  /** Tells the service the utterance is complete (`input.commit`). */
  commit(): void;
  /** `talking` changed (for the snapshot and the `talking` event). */
  changed(talking: boolean): void;
  /** A hold's outcome: the service heard the caller (a turn started), or not within {@link HEARD_WITHIN_MS} after the commit. */
  outcome(heard: boolean): void;
}

/**
 * How long after a hold's commit the service has to show it heard something (its speech start or
 * the caller's transcript) before the hold counts as not heard: the `talk` event's `{ heard: false }`
 * ("I didn't catch that"). The service answers a commit within a few hundred ms.
 */
export const HEARD_WITHIN_MS = 3000;

/**
 * Beyond the microphone processing's own delay, how long after release the commit waits so the
 * utterance's last RTP packets (20 ms each, plus jitter) reach the service before it.
 */
export const COMMIT_TAIL_MS = 60;

/**
 * `turnTaking: 'push-to-talk'`: the microphone is heard only while the caller holds talk. Pressing
 * it over an answer cuts the answer (the caller's explicit interruption); releasing it closes the
 * microphone at once and, once what was said has left (`latencyMs` of processing + {@link
 * COMMIT_TAIL_MS}), commits the utterance so the service answers without waiting for silence.
 */
export class PushToTalk implements SessionEffect {
  // Each hold ends in one `outcome` (heard or not), so a UI never sits silent after a hold the service missed.
  private state: TalkState = 'idle';
  private timer: unknown;
  /** The last hold's outcome is still open (pressed, not yet heard or timed out). */
  private open_ = false;
  /** The service heard the caller since the last press. */
  private heardSincePress = false;
  private outcomeTimer: unknown;

  constructor(private readonly clock: Clock, private readonly effects: TalkEffects, private readonly latencyMs: () => number) {}

  get talking(): boolean {
    return this.state === 'talking';
  }

  /** `talk(true)`; `answering`: an answer is under way (it gets cut). */
  press(answering: boolean): void {
    if (!this.go('press')) return;
    this.clock.clearTimeout(this.timer);
    // A new hold: the previous one's outcome, if still open, is no longer asked for.
    this.clock.clearTimeout(this.outcomeTimer);
    this.open_ = true;
    this.heardSincePress = false;
    if (answering) this.effects.interruptAnswer();
    this.open(true);
  }

  /** `talk(false)`. */
  release(): void {
    if (!this.go('release')) return;
    this.open(false);
    const commitAfter = this.latencyMs() + COMMIT_TAIL_MS;
    this.timer = this.clock.setTimeout(() => this.go('tailSent') && this.effects.commit(), commitAfter);
    if (this.heardSincePress) this.settle(true);
    else this.outcomeTimer = this.clock.setTimeout(() => this.settle(false), commitAfter + HEARD_WITHIN_MS);
  }

  /** The service heard the caller (speech started, or their transcript): the hold's outcome, once released. */
  heard(): void {
    this.heardSincePress = true;
    if (this.state !== 'talking') this.settle(true);
  }

  private settle(heard: boolean): void {
    if (!this.open_) return;
    this.open_ = false;
    this.clock.clearTimeout(this.outcomeTimer);
    this.effects.outcome(heard);
  }

  /** The call is over: closed, nothing committed. */
  close(): void {
    this.stop();
  }

  stop(): void {
    const talking = this.talking;
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.outcomeTimer);
    this.open_ = false;
    this.go('stop');
    if (talking) this.open(false);
  }

  private open(open: boolean): void {
    this.effects.setOpen(open);
    this.effects.changed(open);
  }

  private go(input: 'press' | 'release' | 'tailSent' | 'stop'): boolean {
    const next = TALK_TRANSITIONS[this.state][input];
    if (next) this.state = next;
    return next !== undefined;
  }
}
