import { PROTOCOL_VERSION } from '../schemas/realtime-events.js';
import type { Attempt } from './attempt.js';
import { sleep, type Clock } from './clock.js';
import { Waiters } from './waiters.js';

/** How long the jitter buffer may still hold the answer's last frames after `output.speech_stopped`. */
const TAIL_MS = 150;

/** How the end of a connected call says goodbye to the service before the link closes (the `ending` state's work). */
export class Ending {
  private readonly speech: Waiters;

  constructor(private readonly clock: Clock, private readonly gracefulEndTimeoutMs: number) {
    this.speech = new Waiters(clock);
  }

  /** The assistant stopped speaking (or can no longer be heard): a graceful end waiting for it goes on. */
  speechOver(): void {
    this.speech.wake();
  }

  /**
   * `graceful` while the assistant speaks lets it finish its sentence (bounded by
   * `gracefulEndTimeoutMs`); then `session.end` is sent over `attempt` and given time to leave.
   * Never throws. The caller silenced the microphone first: no new turn may start meanwhile.
   */
  async goodbye(attempt: Attempt, mode: 'graceful' | 'immediate', assistantSpeaking: boolean): Promise<void> {
    if (mode === 'graceful' && assistantSpeaking) {
      await this.speech.wait(this.gracefulEndTimeoutMs);
      await sleep(this.clock, TAIL_MS);
    }
    try {
      attempt.send({ v: PROTOCOL_VERSION, type: 'session.end' });
      await attempt.drain(500);
    } catch {
      // The link is already gone: nothing left to tell the service.
    }
  }
}
