import { PROTOCOL_VERSION } from '../schemas/realtime-events.js';
import { sleep } from './connector.js';
import type { Link } from './link.js';
import type { Microphone } from './microphone.js';
import type { VoiceSessionOptions } from './options.js';
import { Waiters } from './waiters.js';

/** How the end of a connected call says goodbye to the service before the link closes. */
export class Ending {
  private readonly speech = new Waiters();

  constructor(
    private readonly link: Link,
    private readonly microphone: Microphone,
    private readonly assistantSpeaking: () => boolean,
    private readonly options: Pick<VoiceSessionOptions, 'gracefulEndTimeoutMs'>,
  ) {}

  /** The assistant stopped speaking (or can no longer be heard): a graceful end waiting for it goes on. */
  speechOver(): void {
    this.speech.wake();
  }

  /**
   * The microphone goes quiet; `graceful` lets the assistant finish its sentence (bounded by
   * `gracefulEndTimeoutMs`); then `session.end` is sent and given time to leave. Never throws.
   */
  async goodbye(mode: 'graceful' | 'immediate'): Promise<void> {
    // The user is done: no new turn may start while the last answer finishes.
    this.microphone.silence();
    if (mode === 'graceful' && this.assistantSpeaking()) {
      await this.speech.wait(this.options.gracefulEndTimeoutMs ?? 10000);
      await sleep(150); // the jitter buffer still holds the last frames
    }
    try {
      this.link.send({ v: PROTOCOL_VERSION, type: 'session.end' });
      await this.link.drain(500);
    } catch {
      // The link is already gone: nothing left to tell the service.
    }
  }
}
