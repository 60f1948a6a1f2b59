/**
 * Is a stretch of the caller's frames speech? Enough of its frames are voice (./caller-voice.ts)
 * and their pitch moves: a voice's pitch changes from one 10 ms frame to the next (intonation,
 * jitter), while a beep, a hum or a held music note — periodic and voiced too — holds it still.
 * Used by the VAD (is this utterance speech at all?) and by the barge-in judge (does it interrupt?).
 */

/** One 10 ms frame of the caller's audio, as judged by ./caller-voice.ts. */
export interface FrameVerdict {
  /** Audio time of the frame's end (ms since the call's audio began). */
  atMs: number;
  /** Voiced, voice-like, loud enough and not the answer's echo. */
  voice: boolean;
  /** Pitch (Hz) of a voice frame. */
  pitchHz: number;
}

/**
 * Speech begins: this many voice frames among the last `withinFrames` (60 ms within 120 ms: a dense
 * stretch of a few pitch periods that move, not scattered frames — a leak of echo, a clatter, a
 * music note's attack). The VAD's utterance start and the judge's onset use the same rule.
 */
export const SPEECH_ONSET = { voiceFrames: 6, withinFrames: 12 } as const;

/** A stretch whose pitch holds still this often (consecutive voice frames within 0.4%) is a tone or a note. */
export const MAX_STEADY_SHARE = 0.6;
const STEADY_PITCH = 0.004;
/** Voice frames (and their pitch pairs) looked at for steadiness. */
const STEADY_WINDOW = 30;
/** Pitch pairs needed before steadiness says anything (fewer: one note's attack can look like intonation). */
const MIN_PAIRS = 8;

export class SpeechStretch {
  readonly #windowFrames: number;
  /** Recent frames: whether each was voice. */
  #recent: boolean[] = [];
  /** Recent voice frames: whether each held the previous one's pitch. */
  #steady: boolean[] = [];
  #lastPitch = 0;
  /** Audio time of the last voice frame. */
  lastVoiceAt = -Infinity;

  /** `windowFrames`: how many recent frames {@link voiceFrames} counts over. */
  constructor(windowFrames: number) {
    this.#windowFrames = Math.max(1, windowFrames);
  }

  push(v: FrameVerdict): void {
    this.#recent.push(v.voice);
    if (this.#recent.length > this.#windowFrames) this.#recent.shift();
    if (!v.voice) {
      this.#lastPitch = 0;
      return;
    }
    if (this.#lastPitch > 0) {
      this.#steady.push(Math.abs(v.pitchHz - this.#lastPitch) / this.#lastPitch < STEADY_PITCH);
      if (this.#steady.length > STEADY_WINDOW) this.#steady.shift();
    }
    this.#lastPitch = v.pitchHz;
    this.lastVoiceAt = v.atMs;
  }

  /** Voice frames among the last `within` frames. */
  voiceFrames(within = this.#recent.length): number {
    let n = 0;
    for (let i = Math.max(0, this.#recent.length - within); i < this.#recent.length; i++) if (this.#recent[i]) n++;
    return n;
  }

  /** Frames since the first voice frame still in the window (0 when none). */
  get voiceSpanFrames(): number {
    const i = this.#recent.indexOf(true);
    return i < 0 ? 0 : this.#recent.length - i;
  }

  /** Speech, not a tone: at least `minVoice` voice frames among the last `within`, and a moving pitch. */
  speechLike(minVoice: number, within?: number): boolean {
    if (this.voiceFrames(within) < minVoice || this.#steady.length < MIN_PAIRS) return false;
    const steady = this.#steady.reduce((n, x) => n + (x ? 1 : 0), 0) / this.#steady.length;
    return steady <= MAX_STEADY_SHARE;
  }

  reset(): void {
    this.#recent = [];
    this.#steady = [];
    this.#lastPitch = 0;
  }
}
