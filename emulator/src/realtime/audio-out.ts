/**
 * Sends synthesized speech into an outgoing WebRTC audio track in real time: 10 ms frames of 480
 * samples at 48 kHz, as `RTCAudioSource.onData` expects. Frames are scheduled against absolute
 * time (frame n is due at start + n·10 ms), so timer jitter never accumulates into drift; a late
 * timer sends the frames that are due in one go, and a long stall restarts the clock instead of
 * bursting seconds of audio.
 */

export const OUTPUT_SAMPLE_RATE = 48000;
export const FRAME_MS = 10;
export const FRAME_SAMPLES = (OUTPUT_SAMPLE_RATE * FRAME_MS) / 1000;
const MAX_LAG_MS = 200;

/** The part of `RTCAudioSource` this module needs. */
export interface AudioFrameSink {
  onData(data: { samples: Int16Array; sampleRate: number; bitsPerSample: number; channelCount: number; numberOfFrames: number }): void;
}

export type PlaybackEnd = 'completed' | 'interrupted' | 'ended';

export interface PlaybackResult {
  reason: PlaybackEnd;
  /** Audio actually sent (ms). */
  sentMs: number;
  /** `performance.now()` when the first frame was handed to the track; null when none was. */
  firstFrameAt: number | null;
}

export interface PlaybackHooks {
  /** Called right after the first frame is sent. */
  onFirstFrame?(at: number): void;
  /** Called after each frame with the fraction of the clip sent so far (0..1]. */
  onProgress?(fraction: number): void;
}

/** One clip being played; `stop` ends it early. */
export interface Playback {
  readonly done: Promise<PlaybackResult>;
  stop(reason: Exclude<PlaybackEnd, 'completed'>): void;
}

export class PacedAudioOutput {
  readonly #sink: AudioFrameSink;
  #current: { stop(reason: Exclude<PlaybackEnd, 'completed'>): void } | undefined;

  constructor(sink: AudioFrameSink) {
    this.#sink = sink;
  }

  get playing(): boolean {
    return this.#current !== undefined;
  }

  /** Stops what is playing, if anything. */
  stop(reason: Exclude<PlaybackEnd, 'completed'>): void {
    this.#current?.stop(reason);
  }

  /** Plays 48 kHz mono samples; a clip already playing is stopped as `interrupted`. */
  play(samples: Int16Array, hooks: PlaybackHooks = {}): Playback {
    this.#current?.stop('interrupted');
    const total = Math.ceil(samples.length / FRAME_SAMPLES);
    let sent = 0;
    let start = performance.now();
    let firstFrameAt: number | null = null;
    let timer: NodeJS.Timeout | undefined;
    let finish!: (r: PlaybackResult) => void;
    const done = new Promise<PlaybackResult>((resolve) => { finish = resolve; });
    let finished = false;

    const end = (reason: PlaybackEnd) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (this.#current === handle) this.#current = undefined;
      finish({ reason, sentMs: Math.min(sent * FRAME_MS, (samples.length / OUTPUT_SAMPLE_RATE) * 1000), firstFrameAt });
    };

    const sendFrame = () => {
      const frame = new Int16Array(FRAME_SAMPLES);
      frame.set(samples.subarray(sent * FRAME_SAMPLES, (sent + 1) * FRAME_SAMPLES));
      this.#sink.onData({ samples: frame, sampleRate: OUTPUT_SAMPLE_RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME_SAMPLES });
      sent++;
      if (firstFrameAt === null) {
        firstFrameAt = performance.now();
        hooks.onFirstFrame?.(firstFrameAt);
      }
      hooks.onProgress?.(sent / total);
    };

    const tick = () => {
      if (finished) return;
      let now = performance.now();
      if (now - (start + sent * FRAME_MS) > MAX_LAG_MS) start = now - sent * FRAME_MS;
      const due = Math.min(total, Math.floor((now - start) / FRAME_MS) + 1);
      try {
        while (sent < due && !finished) sendFrame();
      } catch {
        // The track went away under us (connection closing): nothing more can be played.
        return end('ended');
      }
      if (finished) return;
      if (sent >= total) return end('completed');
      now = performance.now();
      timer = setTimeout(tick, Math.max(0, start + sent * FRAME_MS - now));
    };

    const handle = { stop: (reason: Exclude<PlaybackEnd, 'completed'>) => end(reason) };
    this.#current = handle;
    if (total === 0) end('completed');
    else tick();
    return { done, stop: handle.stop };
  }
}
