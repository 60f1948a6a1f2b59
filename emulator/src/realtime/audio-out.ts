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
  /** Called after each frame with the fraction sent of the audio appended so far (0..1]. */
  onProgress?(fraction: number): void;
  /** Called after each frame with the number of samples sent so far. */
  onSent?(samples: number): void;
}

/** One clip being played; `stop` ends it early. */
export interface Playback {
  readonly done: Promise<PlaybackResult>;
  stop(reason: Exclude<PlaybackEnd, 'completed'>): void;
}

/**
 * A clip whose audio arrives in pieces (e.g. one synthesized sentence at a time): `append` more
 * 48 kHz samples while it plays, `finish` once the last piece is in. When playback catches up with
 * what was appended it waits, and the clock restarts at the next append (no burst, no drift).
 */
export interface StreamingPlayback extends Playback {
  append(samples: Int16Array): void;
  finish(): void;
  /** Holds the audio where it is (silence is sent) until {@link resume}; appends still queue. */
  pause(): void;
  /** Continues a paused clip from where it stopped. */
  resume(): void;
  readonly paused: boolean;
  /** Resolves once at most `ms` of appended audio is left to send (or the clip ended). */
  whenBufferedBelow(ms: number): Promise<void>;
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
    const playback = this.stream(hooks);
    playback.append(samples);
    playback.finish();
    return playback;
  }

  /** Starts a clip that is appended to while it plays; a clip already playing is stopped as `interrupted`. */
  stream(hooks: PlaybackHooks = {}): StreamingPlayback {
    this.#current?.stop('interrupted');
    const chunks: Int16Array[] = [];
    let chunkIndex = 0;
    let chunkOffset = 0;
    let appended = 0;
    let complete = false;
    let sent = 0; // frames
    let start = performance.now();
    let waiting = true; // no timer pending: waiting for audio
    let paused = false;
    /** While paused: when the pause began and the silent frames sent since. */
    let pausedAt = 0;
    let silentSent = 0;
    let firstFrameAt: number | null = null;
    let timer: NodeJS.Timeout | undefined;
    let finish!: (r: PlaybackResult) => void;
    const done = new Promise<PlaybackResult>((resolve) => { finish = resolve; });
    let finished = false;
    /** Waiters of whenBufferedBelow: [threshold in samples, resolve]. */
    let lowWater: Array<[number, () => void]> = [];
    const checkLowWater = () => {
      if (!lowWater.length) return;
      const buffered = appended - Math.min(appended, sent * FRAME_SAMPLES);
      const ready = lowWater.filter(([below]) => finished || buffered <= below);
      if (!ready.length) return;
      lowWater = lowWater.filter((w) => !ready.includes(w));
      for (const [, resolve] of ready) resolve();
    };

    const end = (reason: PlaybackEnd) => {
      if (finished) return;
      finished = true;
      checkLowWater();
      clearTimeout(timer);
      if (this.#current === handle) this.#current = undefined;
      finish({ reason, sentMs: Math.min(sent * FRAME_MS, (appended / OUTPUT_SAMPLE_RATE) * 1000), firstFrameAt });
    };

    /** Frames that can be sent now: whole ones, plus a zero-padded last one once the clip is complete. */
    const available = () => (complete ? Math.ceil(appended / FRAME_SAMPLES) : Math.floor(appended / FRAME_SAMPLES));

    const sendFrame = () => {
      const frame = new Int16Array(FRAME_SAMPLES);
      let filled = 0;
      while (filled < FRAME_SAMPLES && chunkIndex < chunks.length) {
        const chunk = chunks[chunkIndex]!;
        const take = Math.min(FRAME_SAMPLES - filled, chunk.length - chunkOffset);
        frame.set(chunk.subarray(chunkOffset, chunkOffset + take), filled);
        filled += take;
        chunkOffset += take;
        if (chunkOffset >= chunk.length) {
          chunks[chunkIndex] = EMPTY; // sent: let it be collected
          chunkIndex++;
          chunkOffset = 0;
        }
      }
      this.#sink.onData({ samples: frame, sampleRate: OUTPUT_SAMPLE_RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME_SAMPLES });
      sent++;
      if (firstFrameAt === null) {
        firstFrameAt = performance.now();
        hooks.onFirstFrame?.(firstFrameAt);
      }
      const sentSamples = Math.min(appended, sent * FRAME_SAMPLES);
      hooks.onProgress?.(appended ? sentSamples / appended : 1);
      hooks.onSent?.(sentSamples);
      checkLowWater();
    };

    const tick = () => {
      timer = undefined;
      if (finished) return;
      let now = performance.now();
      if (paused) {
        // Silence on the line while held: the caller hears the answer stop at once, not the
        // receiver's concealment of missing packets (which goes on repeating the last sound).
        const due = Math.floor((now - pausedAt) / FRAME_MS) + 1;
        try {
          while (silentSent < due) {
            this.#sink.onData({ samples: SILENT, sampleRate: OUTPUT_SAMPLE_RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME_SAMPLES });
            silentSent++;
          }
        } catch {
          return end('ended');
        }
        timer = setTimeout(tick, Math.max(0, pausedAt + silentSent * FRAME_MS - performance.now()));
        return;
      }
      if (now - (start + sent * FRAME_MS) > MAX_LAG_MS) start = now - sent * FRAME_MS;
      const due = Math.min(available(), Math.floor((now - start) / FRAME_MS) + 1);
      try {
        while (sent < due && !finished) sendFrame();
      } catch {
        // The track went away under us (connection closing): nothing more can be played.
        return end('ended');
      }
      if (finished) return;
      if (complete && sent >= available()) return end('completed');
      if (sent >= available()) {
        waiting = true; // underrun: the next append restarts the clock
        return;
      }
      now = performance.now();
      timer = setTimeout(tick, Math.max(0, start + sent * FRAME_MS - now));
    };

    const resume = () => {
      if (!waiting || finished || paused) return;
      waiting = false;
      start = performance.now() - sent * FRAME_MS;
      tick();
    };

    const handle = { stop: (reason: Exclude<PlaybackEnd, 'completed'>) => end(reason) };
    this.#current = handle;
    return {
      done,
      stop: handle.stop,
      append(samples) {
        if (finished || complete || samples.length === 0) return;
        chunks.push(samples);
        appended += samples.length;
        resume();
      },
      finish() {
        if (finished || complete) return;
        complete = true;
        if (sent >= available()) end('completed');
        else resume();
      },
      get paused() {
        return paused;
      },
      pause() {
        if (finished || paused) return;
        paused = true;
        clearTimeout(timer);
        waiting = true; // the clock restarts on resume: no burst of the paused time
        pausedAt = performance.now();
        silentSent = 0;
        tick();
      },
      resume() {
        if (finished || !paused) return;
        paused = false;
        clearTimeout(timer);
        timer = undefined;
        if (complete && sent >= available()) return end('completed');
        resume();
      },
      whenBufferedBelow(ms) {
        return new Promise<void>((resolve) => {
          lowWater.push([(ms / 1000) * OUTPUT_SAMPLE_RATE, resolve]);
          checkLowWater();
        });
      },
    };
  }
}

const EMPTY = new Int16Array(0);
const SILENT = new Int16Array(FRAME_SAMPLES);
