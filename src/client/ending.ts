import { PROTOCOL_VERSION } from '../schemas/realtime-events.js';
import type { Attempt } from './attempt.js';
import { sleep, type Clock } from '../clock.js';
import type { TranscriptUpdate } from './events.js';
import { Waiters } from './waiters.js';

/** How long the jitter buffer may still hold the answer's last frames after `output.speech_stopped`. */
const TAIL_MS = 150;
/**
 * How long the client waits, after `session.end`, for the service to close the link before closing
 * it itself. The service closes first (the emulator within milliseconds, once the last turn is
 * recorded and its last events sent) because the side that closes must be the side that has
 * stopped sending: a Node peer (@roamhq/wrtc) that sends on a data channel while the far end closes
 * it can crash its process — wrtc's `RTCDataChannel.send` checks the native channel, copies the
 * message, then uses the channel, which libwebrtc's signaling thread may have released meanwhile
 * (SIGSEGV in `node_webrtc::RTCDataChannel::Send`, seen under load; docs/contributing.md).
 */
export const GOODBYE_CLOSE_MS = 1000;

/**
 * The end of a sentence in an answer's transcript: `.`, `!`, `?` or `…` before a space, a closing
 * quote or bracket, or the end of the text so far; or a CJK full stop, exclamation or question
 * mark. A decimal point at the end of a delta ("2.") reads as one too: the end comes a little early.
 */
const SENTENCE_END = /[.!?\u2026]["'\u2019\u201d)\]]*(\s|$)|[\u3002\uff01\uff1f]/;

/** How the end of a connected call says goodbye to the service before the link closes (the `ending` state's work). */
export class Ending {
  private readonly speech: Waiters;
  /** The assistant's transcript of the latest answer (its turn and text so far). */
  private answer = { turnId: -1, text: '' };
  /** Where the answer's transcript stood when a graceful end began to wait: the sentence ends after it. */
  private mark: { turnId: number; at: number } | undefined;

  constructor(private readonly clock: Clock, private readonly gracefulEndTimeoutMs: number) {
    this.speech = new Waiters(clock);
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
   * `gracefulEndTimeoutMs` — not the whole answer; then `session.end` is sent over `attempt`, given time to leave, and
   * the service given {@link GOODBYE_CLOSE_MS} to close the link (a protocol without a goodbye
   * message, such as OpenAI's, closes at once). Never throws. The caller silenced the microphone and
   * stopped the heartbeat first: nothing else is sent meanwhile.
   */
  async goodbye(attempt: Attempt, mode: 'graceful' | 'immediate', assistantSpeaking: boolean): Promise<void> {
    if (mode === 'graceful' && assistantSpeaking) {
      // From the last character: a sentence that ended with the latest delta may still be playing,
      // and it counts as ended when the next delta follows it.
      this.mark = { turnId: this.answer.turnId, at: Math.max(0, this.answer.text.length - 1) };
      await this.speech.wait(this.gracefulEndTimeoutMs);
      this.mark = undefined;
      await sleep(this.clock, TAIL_MS);
    }
    try {
      if (attempt.send({ v: PROTOCOL_VERSION, type: 'session.end' }) === 0) return;
      await attempt.drain(500);
      await attempt.closedByFarEnd(GOODBYE_CLOSE_MS);
    } catch {
      // The link is already gone: nothing left to tell the service.
    }
  }
}
