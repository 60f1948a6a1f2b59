import { sleep, type Clock } from '../clock.js';
import type { TranscriptUpdate } from './events.js';
import type { AnswerHeard } from './turns.js';
import type { SessionEffect } from './effects.js';
import { Waiters } from './waiters.js';

/** How long the jitter buffer may still hold the answer's last frames after `output.speech_stopped`. */
const TAIL_MS = 150;

/**
 * The end of a sentence in an answer's transcript: `.`, `!`, `?` or `…` before a space, a closing
 * quote or bracket, or the end of the text so far; or a CJK full stop, exclamation or question
 * mark. A decimal point at the end of a delta ("2.") reads as one too: the end comes a little early.
 */
const SENTENCE_END = /[.!?\u2026]["'\u2019\u201d)\]]*(\s|$)|[\u3002\uff01\uff1f]/;

/**
 * How long a graceful end of a connected call waits before the goodbye (the `ending` state's
 * work): its inputs are the answer as heard (the turn tracker's {@link AnswerHeard}, wired to it)
 * and the call's lifecycle; the goodbye itself is the link's (Attempt.goodbye).
 */
export class Ending implements SessionEffect, AnswerHeard {
  private readonly speech: Waiters;
  /** The assistant's transcript of the latest answer (its turn and text so far). */
  private answer = { turnId: -1, text: '' };
  /** Where the answer's transcript stood when a graceful end began to wait: the sentence ends after it. */
  private mark: { turnId: number; at: number } | undefined;

  constructor(private readonly clock: Clock, private readonly gracefulEndTimeoutMs: number) {
    this.speech = new Waiters(clock);
  }

  lost(): void {
    this.speechOver();
  }

  close(): void {
    this.speechOver();
  }

  /** The assistant stopped speaking (or can no longer be heard): a graceful end waiting for it goes on. */
  speechOver(): void {
    this.speech.wake();
  }

  /**
   * The answer's words as heard (the service sends `transcript.delta` in step with the audio): a
   * graceful end waiting for the current sentence goes on once a sentence ends after its mark.
   */
  transcript(update: TranscriptUpdate): void {
    if (update.role !== 'assistant') return;
    this.answer = { turnId: update.turnId, text: update.text };
    const mark = this.mark;
    if (!mark) return;
    const from = mark.turnId === update.turnId ? mark.at : 0;
    if (SENTENCE_END.test(update.text.slice(from))) this.speech.wake();
  }

  /**
   * `graceful` while the assistant speaks lets it finish the sentence it is saying — until its
   * transcript ends a sentence, or the speech stops, whichever comes first, bounded by
   * `gracefulEndTimeoutMs` — not the whole answer; `immediate` (or silence) goes on at once.
   * Never throws. The caller silenced the microphone and stopped the heartbeat first, and says
   * goodbye over the link afterwards.
   */
  async heardOut(mode: 'graceful' | 'immediate', assistantSpeaking: boolean): Promise<void> {
    if (mode !== 'graceful' || !assistantSpeaking) return;
    // From the last character: a sentence that ended with the latest delta may still be playing,
    // and it counts as ended when the next delta follows it.
    this.mark = { turnId: this.answer.turnId, at: Math.max(0, this.answer.text.length - 1) };
    await this.speech.wait(this.gracefulEndTimeoutMs);
    this.mark = undefined;
    await sleep(this.clock, TAIL_MS);
  }
}
