import type { Turn } from 'kb-voice';
import { clock, el, formatMs } from './dom.js';

/** Where a turn's answer was cut: by whom, when its audio stopped, and how far into the audio. */
export interface AnswerCut {
  by: NonNullable<Turn['interruptedBy']> | 'unknown';
  at: Date;
  /** Audio heard before the cut (ms); null when the answer was cut before any of it played. */
  intoMs: number | null;
}

const WHO: Record<AnswerCut['by'], string> = { caller: 'the caller', app: 'the app', unknown: 'someone unknown' };

/**
 * Follows the answer's audio (the session's `assistantSpeaking`) so that each finished turn can say
 * when its answer was cut: the service completes a cut turn right after its audio stopped. An
 * answer paused by a false interruption and resumed keeps its first start.
 */
export class AnswerCuts {
  #startedAt: number | null = null;
  #stoppedAt: number | null = null;

  speaking(on: boolean, now = Date.now()): void {
    if (on) {
      this.#startedAt ??= now;
      this.#stoppedAt = null;
    } else this.#stoppedAt = now;
  }

  /** The cut of a finished turn's answer (null when it was heard whole); the next answer starts afresh. */
  take(turn: Turn): AnswerCut | null {
    const started = this.#startedAt;
    const stopped = this.#stoppedAt;
    this.#startedAt = this.#stoppedAt = null;
    if (!turn.interrupted) return null;
    return {
      by: turn.interruptedBy ?? 'unknown',
      at: new Date(stopped ?? Date.parse(turn.completedAt)),
      intoMs: started !== null && stopped !== null ? stopped - started : null,
    };
  }
}

/** The turn row's line about its answer: when it was cut and by whom, and the sounds that only paused it. */
export function renderCut(turn: Turn, cut: AnswerCut | null): HTMLElement | null {
  const paused = turn.falseInterruptions;
  if (!cut && paused === 0) return null;
  const pausedWords = paused === 0 ? '' : `${paused} false interruption${paused === 1 ? '' : 's'} (paused, then resumed)`;
  return el(
    'p',
    { class: 'cut', 'data-testid': 'turn-cut-info', 'data-false-interruptions': paused },
    cut
      ? el(
          'span',
          { 'data-testid': 'turn-cut', 'data-by': cut.by, 'data-into-ms': cut.intoMs ?? undefined },
          `Answer cut by ${WHO[cut.by]} at ${clock(cut.at)}, `,
          cut.intoMs === null ? 'before any of it was heard' : `${formatMs(cut.intoMs)} into its audio`,
          pausedWords ? '; ' : '.',
        )
      : null,
    pausedWords ? el('span', { 'data-testid': 'turn-false-interruptions' }, `${pausedWords}.`) : null,
  );
}
