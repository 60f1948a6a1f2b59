import type { EchoGuard } from './echo-guard.js';
import { rms } from './echo-guard.js';
import type { FrameVerdict } from './speech-stretch.js';
import { isVoiceLike, VoiceLikeness, type VoiceLikenessThresholds } from './voice-likeness.js';

/**
 * One 10 ms frame of the caller's audio, judged: libfvad's voiced bit, the frame's voice-likeness
 * (./voice-likeness.ts), whether it stands above the background (a fan or a hum sets a floor that
 * steady noise never rises above; the floor is the quietest frame of the last 1.5 s, minimum
 * statistics as in noise estimators) and whether the emulator's own answer explains it
 * (./echo-guard.ts). What the VAD segments utterances with, and what the barge-in judge decides on.
 */
export interface CallerFrame extends FrameVerdict {
  /** libfvad's decision, echo excluded. */
  voiced: boolean;
  /** The answer's own echo. */
  echo: boolean;
  /** Frame level (dBFS). */
  dbfs: number;
}

/** How far (dB) a voice frame must stand above the background floor: a steady noise does not. */
export const ABOVE_FLOOR_DB = 6;
/** The floor is the quietest frame of the last this many frames (1.5 s: minimum statistics). */
const FLOOR_FRAMES = 150;

export class CallerVoice {
  readonly #likeness = new VoiceLikeness();
  /** Recent frame levels (dBFS), for the background floor. */
  readonly #levels: number[] = [];
  readonly #echo: EchoGuard | undefined;
  #thresholds: VoiceLikenessThresholds | undefined;

  constructor(options: { echo?: EchoGuard; thresholds?: VoiceLikenessThresholds } = {}) {
    this.#echo = options.echo;
    this.#thresholds = options.thresholds;
  }

  /** Changes the voice-likeness thresholds (OpenAI `turn_detection.threshold`). */
  configure(thresholds: VoiceLikenessThresholds | undefined): void {
    this.#thresholds = thresholds;
  }

  /** `atMs`: the frame's audio time; `now`: when it was heard (the echo reference's clock). */
  judge(frame: Int16Array, fvadVoiced: boolean, atMs: number, now: number): CallerFrame {
    const features = this.#likeness.analyze(frame);
    const echo = fvadVoiced && this.#echo !== undefined && this.#echo.isEcho(rms(frame), now);
    const voiced = fvadVoiced && !echo;
    this.#levels.push(features.dbfs);
    if (this.#levels.length > FLOOR_FRAMES) this.#levels.shift();
    const floor = Math.min(...this.#levels);
    const voice = voiced && features.dbfs >= floor + ABOVE_FLOOR_DB && isVoiceLike(features, this.#thresholds);
    return { atMs, voiced, echo, voice, pitchHz: features.pitchHz, dbfs: features.dbfs };
  }
}
