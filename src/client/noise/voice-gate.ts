/**
 * The client voice gate's rule, without audio: per 10 ms frame it reads a voice probability
 * (rnnoise's) and says whether the frame leaving its delay line is sent or replaced by silence.
 *
 * Sound is sent only around voice, so no service's VAD ever hears a beep, a click or the fan.
 * A word's onset is never clipped: every frame is delayed by `preRollMs`, so when voice is confirmed
 * the frames before it (the soft consonant rnnoise scores low) are still in the delay line and go
 * out. A word's tail is never clipped either: the gate stays open `hangoverMs` after the last voiced
 * frame. A single voiced-looking frame (a click) does not open it: voice must last `minVoiceMs`.
 *
 * Frame `t - delay` (the one leaving) is sent iff the last confirmed voice frame lies in
 * `[t - delay - hangover, t]`; the state is two numbers, so the rule is its own transition table.
 */

/** Settings of the voice gate (all in ms, probabilities 0-1). */
export interface VoiceGateOptions {
  /** How much audio before confirmed voice is still sent (the delay every frame pays). Default 200. */
  preRollMs?: number;
  /** How long the gate stays open after the last voiced frame. Default 400. */
  hangoverMs?: number;
  /** Voice probability that counts as voice. Default 0.6. */
  openThreshold?: number;
  /** Once in voice, probability that keeps it voice (hysteresis). Default 0.3. */
  closeThreshold?: number;
  /**
   * Voice must last this long before it opens the gate (default 100): a click scores as voice for
   * up to ~50 ms, and a tone is known as one after 80 ms. Keep it below `preRollMs`.
   */
  minVoiceMs?: number;
}

/** Frame length of rnnoise at 48 kHz: 480 samples. */
export const GATE_FRAME_MS = 10;

export const VOICE_GATE_DEFAULTS: Readonly<Required<VoiceGateOptions>> = Object.freeze({
  preRollMs: 200,
  hangoverMs: 400,
  openThreshold: 0.6,
  closeThreshold: 0.3,
  minVoiceMs: 100,
});

/** Limits of each setting: a value outside is a programming error (RangeError), never clamped silently. */
const LIMITS: Record<keyof VoiceGateOptions, [number, number]> = {
  preRollMs: [0, 1000],
  hangoverMs: [0, 3000],
  openThreshold: [0, 1],
  closeThreshold: [0, 1],
  minVoiceMs: [0, 500],
};

/** The settings with defaults filled in, checked against their limits. */
export function voiceGateSettings(options: VoiceGateOptions = {}): Required<VoiceGateOptions> {
  const settings = { ...VOICE_GATE_DEFAULTS, ...stripUndefined(options) };
  for (const [key, [min, max]] of Object.entries(LIMITS) as [keyof VoiceGateOptions, [number, number]][]) {
    const value = settings[key];
    if (!Number.isFinite(value) || value < min || value > max) throw new RangeError(`voiceGate.${key} must be between ${min} and ${max} (got ${value})`);
  }
  if (settings.closeThreshold > settings.openThreshold) throw new RangeError('voiceGate.closeThreshold must not exceed openThreshold');
  return settings;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What one frame did to the gate (for counters and tests). */
export interface GateStep {
  /** The frame leaving the delay line now is sent (true) or silenced (false). */
  open: boolean;
  /** The frame just pushed is voice (confirmed, or within a confirmed run). */
  voiced: boolean;
}

export class VoiceGate {
  /** Frames every output is delayed by (pre-roll). */
  readonly delayFrames: number;
  private readonly hangoverFrames: number;
  private readonly minVoiceFrames: number;
  private readonly settings: Required<VoiceGateOptions>;
  /** Index of the frame pushed last. */
  private frame = -1;
  /** Consecutive frames above the open threshold (to confirm voice). */
  private run = 0;
  private inVoice = false;
  /** Index of the last frame that was confirmed voice; -Infinity: none yet. */
  private lastVoiced = Number.NEGATIVE_INFINITY;

  constructor(options: VoiceGateOptions = {}) {
    this.settings = voiceGateSettings(options);
    this.delayFrames = Math.round(this.settings.preRollMs / GATE_FRAME_MS);
    this.hangoverFrames = Math.round(this.settings.hangoverMs / GATE_FRAME_MS);
    this.minVoiceFrames = Math.max(1, Math.round(this.settings.minVoiceMs / GATE_FRAME_MS));
  }

  /** One frame's voice probability in; whether the frame leaving the delay line is sent. */
  push(probability: number): GateStep {
    const t = ++this.frame;
    const { openThreshold, closeThreshold } = this.settings;
    if (this.inVoice) {
      this.inVoice = probability >= closeThreshold;
      this.run = this.inVoice ? this.run + 1 : 0;
    } else {
      this.run = probability >= openThreshold ? this.run + 1 : 0;
      this.inVoice = this.run >= this.minVoiceFrames;
    }
    if (this.inVoice) this.lastVoiced = t;
    const leaving = t - this.delayFrames;
    return { open: this.lastVoiced >= leaving - this.hangoverFrames, voiced: this.inVoice };
  }
}
