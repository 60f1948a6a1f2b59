import { PROTOCOL_VERSION } from '../schemas/realtime-events.js';
import type { Attempt } from './attempt.js';
import { sleep, type Clock } from './clock.js';
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
   * `gracefulEndTimeoutMs`); then `session.end` is sent over `attempt`, given time to leave, and
   * the service given {@link GOODBYE_CLOSE_MS} to close the link (a protocol without a goodbye
   * message, such as OpenAI's, closes at once). Never throws. The caller silenced the microphone and
   * stopped the heartbeat first: nothing else is sent meanwhile.
   */
  async goodbye(attempt: Attempt, mode: 'graceful' | 'immediate', assistantSpeaking: boolean): Promise<void> {
    if (mode === 'graceful' && assistantSpeaking) {
      await this.speech.wait(this.gracefulEndTimeoutMs);
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
