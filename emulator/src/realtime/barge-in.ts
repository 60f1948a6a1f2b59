/**
 * Barge-in: when does the caller's sound over an answer interrupt it? The model follows what voice
 * agents ship (docs/real-world.md "Noise, echo and barge-in"):
 *
 * - only speech interrupts, and only the caller's: each 10 ms frame is judged (libfvad voiced,
 *   voice-like, above the background, not the answer's own echo — ./caller-voice.ts; and not far
 *   below the caller's own voice), and a stretch of such frames counts as speech only while its
 *   pitch moves (a beep, a hum or a held music note does not, ./speech-stretch.ts);
 * - a voice onset pauses the answer at once (the caller does not talk over it), and the pause
 *   becomes a cut once the speech has lasted `minSpeechMs` (LiveKit Agents'
 *   `min_interruption_duration`, 0.5 s);
 * - a sound that stops before that is a false interruption: after `resumeAfterMs` of quiet
 *   (LiveKit's `false_interruption_timeout`, 2.0 s, with `resume_false_interruption`) the answer
 *   resumes where it stopped, and is recorded whole.
 *
 * The judge is a pure state machine over frame verdicts and their audio time (no clock of its own):
 * the same frames give the same decisions. Its transitions are {@link JUDGE_TRANSITIONS}.
 */

import { SPEECH_ONSET, SpeechStretch, type FrameVerdict } from './speech-stretch.js';

export type { FrameVerdict };

export interface InterruptionSettings {
  /** `auto`: speech over an answer interrupts it; `off`: it never does (the speech waits its turn). */
  mode: 'auto' | 'off';
  /** Speech (ms, from its onset) before a pause becomes a cut. */
  minSpeechMs: number;
  /** Quiet (ms) after a false interruption before the paused answer resumes. */
  resumeAfterMs: number;
}

/** LiveKit Agents' defaults (AgentSession: min_interruption_duration 0.5, false_interruption_timeout 2.0). */
export const DEFAULT_INTERRUPTIONS: Readonly<InterruptionSettings> = { mode: 'auto', minSpeechMs: 500, resumeAfterMs: 2000 };
/** Limits of the settable values (ms). */
export const INTERRUPTION_LIMITS = { minSpeechMs: [0, 5000], resumeAfterMs: [0, 10_000] } as const;

/** The `interruptions` option in any of its forms, resolved to settings (validated upstream by the schema). */
export function interruptionSettings(
  option: 'auto' | 'off' | { mode?: 'auto' | 'off' | undefined; minSpeechMs?: number | undefined; resumeAfterMs?: number | undefined } | undefined,
): InterruptionSettings {
  if (option === undefined || option === 'auto') return { ...DEFAULT_INTERRUPTIONS };
  if (option === 'off') return { ...DEFAULT_INTERRUPTIONS, mode: 'off' };
  const settings: InterruptionSettings = {
    mode: option.mode ?? DEFAULT_INTERRUPTIONS.mode,
    minSpeechMs: option.minSpeechMs ?? DEFAULT_INTERRUPTIONS.minSpeechMs,
    resumeAfterMs: option.resumeAfterMs ?? DEFAULT_INTERRUPTIONS.resumeAfterMs,
  };
  for (const key of ['minSpeechMs', 'resumeAfterMs'] as const) {
    const [lo, hi] = INTERRUPTION_LIMITS[key];
    const v = settings[key];
    if (!Number.isFinite(v) || v < lo || v > hi) throw new RangeError(`interruptions.${key} must be within ${lo}..${hi} ms, got ${v}`);
  }
  return settings;
}

export type JudgeState = 'idle' | 'listening' | 'paused';
/** What a frame means, in order of precedence. */
export type JudgeSignal = 'idle' | 'answering' | 'confirmed' | 'onset' | 'lapsed' | 'quiet';
export type JudgeAction = 'pause' | 'resume' | 'cut' | 'false-interruption';

/**
 * (state, signal) → (next state, actions). `idle`: no answer in progress. `listening`: an answer
 * plays, nobody talks over it. `paused`: a voice onset paused it. A missing entry keeps the state.
 */
export const JUDGE_TRANSITIONS: Readonly<Record<JudgeState, Partial<Record<JudgeSignal, readonly [JudgeState, readonly JudgeAction[]]>>>> = {
  idle: { answering: ['listening', []] },
  listening: {
    idle: ['idle', []],
    confirmed: ['idle', ['cut']],
    onset: ['paused', ['pause']],
  },
  paused: {
    // The answer ended or was cut by something else (a typed question, the call's end).
    idle: ['idle', []],
    confirmed: ['idle', ['cut']],
    lapsed: ['listening', ['resume', 'false-interruption']],
  },
};

const { voiceFrames: ONSET_VOICE_FRAMES, withinFrames: ONSET_WITHIN_FRAMES } = SPEECH_ONSET;
/** Share of the `minSpeechMs` window that must be voice for a cut (speech has unvoiced parts). */
const CONFIRM_VOICE_SHARE = 0.3;
/** No voice for this long ends a stretch while listening. */
const GAP_MS = 300;
/**
 * Voice this far (dB) under the caller's own level is someone else in the room (babble at a café
 * table, a TV): it does not interrupt. The caller's level is learned from their turns
 * ({@link InterruptionJudge.heardCaller}); until they spoke it is the nominal speech level of
 * ITU-T P.56, -26 dBFS.
 */
export const BARGE_IN_BELOW_CALLER_DB = 10;
const NOMINAL_SPEECH_DBFS = -26;

export class InterruptionJudge {
  #settings: InterruptionSettings;
  #state: JudgeState = 'idle';
  #stretch: SpeechStretch;
  #onsetAt: number | null = null;
  /** Last frame at which the stretch looked like speech (a pause lapses this long after it). */
  #lastSpeechAt = -Infinity;
  #falseInterruptions = 0;
  #callerDbfs = NOMINAL_SPEECH_DBFS;

  constructor(settings: InterruptionSettings = DEFAULT_INTERRUPTIONS) {
    this.#settings = { ...settings };
    this.#stretch = new SpeechStretch(this.#windowFrames());
  }

  #windowFrames(): number {
    return Math.max(ONSET_WITHIN_FRAMES, Math.round(this.#settings.minSpeechMs / 10));
  }

  get state(): JudgeState {
    return this.#state;
  }

  get settings(): Readonly<InterruptionSettings> {
    return this.#settings;
  }

  /** Changes the settings (a session update); a pause in progress stays. */
  configure(settings: InterruptionSettings): void {
    this.#settings = { ...settings };
    this.#stretch = new SpeechStretch(this.#windowFrames());
  }

  /** The active level (dBFS) of an utterance of the caller's that became a turn: up at once, down slowly. */
  heardCaller(levelDbfs: number): void {
    if (!Number.isFinite(levelDbfs)) return;
    this.#callerDbfs = levelDbfs > this.#callerDbfs ? levelDbfs : 0.7 * this.#callerDbfs + 0.3 * levelDbfs;
  }

  /** False interruptions since the judge was made. */
  get falseInterruptions(): number {
    return this.#falseInterruptions;
  }

  /** One frame; `answering`: an answer is in progress (being prepared or playing). Returns what to do. */
  frame(frame: FrameVerdict & { dbfs: number }, answering: boolean): readonly JudgeAction[] {
    const verdict = { ...frame, voice: frame.voice && frame.dbfs >= this.#callerDbfs - BARGE_IN_BELOW_CALLER_DB };
    this.#track(verdict);
    const signal = this.#signal(verdict.atMs, answering);
    const next = JUDGE_TRANSITIONS[this.#state][signal];
    if (!next) return [];
    const [state, actions] = next;
    this.#state = state;
    // Leaving a pause (or never entering one): what was heard so far is settled.
    if (state !== 'paused') this.#forget();
    if (actions.includes('false-interruption')) this.#falseInterruptions++;
    return actions;
  }

  #track(v: FrameVerdict): void {
    const stretch = this.#stretch;
    // A gap ends a stretch that paused nothing (a pause ends by its own rule: lapsed).
    if (!v.voice && v.atMs - stretch.lastVoiceAt >= GAP_MS && this.#state === 'listening') this.#forget();
    stretch.push(v);
  }

  #forget(): void {
    this.#stretch.reset();
    this.#onsetAt = null;
  }

  #signal(atMs: number, answering: boolean): JudgeSignal {
    if (!answering || this.#settings.mode === 'off') return 'idle';
    if (this.#state === 'idle') return 'answering';
    const stretch = this.#stretch;
    const onset = stretch.speechLike(ONSET_VOICE_FRAMES, ONSET_WITHIN_FRAMES);
    if (onset) {
      this.#lastSpeechAt = atMs;
      this.#onsetAt ??= atMs - stretch.voiceSpanFrames * 10;
    }
    if (this.#onsetAt !== null && atMs - this.#onsetAt >= this.#settings.minSpeechMs) {
      const minVoice = Math.max(ONSET_VOICE_FRAMES, Math.ceil((this.#settings.minSpeechMs / 10) * CONFIRM_VOICE_SHARE));
      if (stretch.speechLike(minVoice)) return 'confirmed';
    }
    if (this.#state === 'listening' && onset) return 'onset';
    if (this.#state === 'paused' && atMs - this.#lastSpeechAt >= this.#settings.resumeAfterMs) return 'lapsed';
    return 'quiet';
  }
}
