import type { VoiceSession } from 'kb-voice';

/**
 * The note "the robot is being built" while the call's first answer waits and the warmup has not
 * finished: a cold robot's agent is built for its first task (the spec's agent build, seconds),
 * which the warmup request starts ahead of the first question. Without the note a slow first answer
 * looks like a hang.
 */
export class FirstBuildNote {
  private asked = false;
  private answered = false;
  private warmup: VoiceSession['warmup'] = 'idle';

  constructor(private readonly node: HTMLElement) {}

  /** A new call. */
  reset(warmup: VoiceSession['warmup']): void {
    this.asked = this.answered = false;
    this.warmup = warmup;
    this.render();
  }

  /** A question was asked (spoken or typed). */
  question(): void {
    this.asked = true;
    this.render();
  }

  /** The assistant started answering, or the call ended: nothing waits any more. */
  answer(): void {
    this.answered = true;
    this.render();
  }

  setWarmup(status: VoiceSession['warmup']): void {
    this.warmup = status;
    this.render();
  }

  private render(): void {
    const waiting = this.asked && !this.answered && this.warmup !== 'ok';
    this.node.hidden = !waiting;
    this.node.dataset.warmup = this.warmup;
  }
}
