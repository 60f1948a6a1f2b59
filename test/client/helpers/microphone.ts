import wrtc from '@roamhq/wrtc';

const RATE = 48_000;
const FRAME = 480; // 10 ms at 48 kHz, what RTCAudioSource expects

/**
 * A Node "microphone": an RTCAudioSource track fed in real time with 10 ms frames, silence unless
 * play() is speaking. Timing is driven from the wall clock so frames do not drift behind.
 */
export class FakeMicrophone {
  readonly source = new wrtc.nonstandard.RTCAudioSource();
  readonly streams: MediaStream[] = [];
  /** The device id of each open() call. */
  readonly opened: Array<string | undefined> = [];
  private queue: Int16Array[] = [];
  private done: (() => void) | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly startedAt = Date.now();
  private sent = 0;

  constructor() {
    this.timer = setInterval(() => this.pump(), 5);
  }

  /** A `microphone` option for VoiceSession: each call opens a new track on the same source. */
  readonly open = async (deviceId?: string): Promise<MediaStream> => {
    this.opened.push(deviceId);
    const stream = new wrtc.MediaStream([this.source.createTrack()]);
    this.streams.push(stream);
    return stream;
  };

  /** Speaks 48 kHz mono samples; resolves once the last frame was sent. */
  play(samples: Int16Array): Promise<void> {
    for (let i = 0; i < samples.length; i += FRAME) {
      const frame = new Int16Array(FRAME);
      frame.set(samples.subarray(i, Math.min(i + FRAME, samples.length)));
      this.queue.push(frame);
    }
    return new Promise((resolve) => (this.done = resolve));
  }

  close(): void {
    clearInterval(this.timer);
    for (const s of this.streams) for (const t of s.getTracks()) t.stop();
  }

  private pump(): void {
    const due = Math.floor((Date.now() - this.startedAt) / 10);
    // After a stall, skip ahead rather than burst: a real microphone does not deliver the past.
    if (due - this.sent > 20) this.sent = due - 20;
    while (this.sent < due) {
      this.sent++;
      const frame = this.queue.shift() ?? new Int16Array(FRAME);
      this.source.onData({ samples: frame, sampleRate: RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME });
      if (this.queue.length === 0 && this.done) {
        const done = this.done;
        this.done = undefined;
        done();
      }
    }
  }
}
