/**
 * The two measured ends of `Turn.perceivedLatencyMs`: the end of the caller's speech as the client
 * heard it (its microphone level) and the first sound of the answer out of the receiver (the remote
 * track's level), on the level readings `LevelMonitor` takes (0..1 on a −60..0 dBFS scale, every
 * 20 ms for this meter; the `level` event keeps its 100 ms).
 *
 * - Speech starts at an input reading at or above `speechLevel`. It goes on while the input stays
 *   within `speechRangeDb` of the utterance's own loudest reading (and at or above `quietLevel`):
 *   the end of a sentence is quieter than its middle, and a fixed −30 dBFS threshold called the
 *   speech over up to 110 ms before the service's voice detection did (Flite's trailing
 *   syllables). It ends at the last such reading once `hangoverMs` passed below it (a pause inside
 *   a sentence is not its end).
 * - Answer: the first output reading at or above `answerLevel` after that end; it also ends the
 *   speech at once when it comes within the hangover (the service answered faster).
 * - Speech resuming before any answer sound continues the same question; speech after an answer
 *   sound (a barge-in, the next question) starts a new one, the measured marks kept for the turn.
 * The readings' period bounds the error (±1 reading at each end).
 */
export interface PerceivedLatencyOptions {
  /** Input level that starts speech; default 0.5 (−30 dBFS). */
  speechLevel?: number;
  /** Speech goes on while the input is within this many dB of the utterance's loudest reading; default 24. */
  speechRangeDb?: number;
  /** ...and at or above this level (a floor over room noise); default 0.25 (−45 dBFS). */
  quietLevel?: number;
  /** Output level counted as audible; default 0.3 (−42 dBFS). */
  answerLevel?: number;
  /** Quiet time after the last speech reading before the speech counts as ended (ms); default 400. */
  hangoverMs?: number;
}

export const PERCEIVED_LATENCY_DEFAULTS = Object.freeze({ speechLevel: 0.5, speechRangeDb: 24, quietLevel: 0.25, answerLevel: 0.3, hangoverMs: 400 });

/** The ends of one question's perceived latency (the meter's clock, ms). */
export interface PerceivedMarks {
  speechEndAt: number;
  heardAt: number;
}

type Phase =
  | { name: 'idle' }
  | { name: 'speaking'; lastLoudAt: number; peak: number }
  | { name: 'ended'; endAt: number };

export class PerceivedLatencyMeter {
  private phase: Phase = { name: 'idle' };
  /** The latest question's marks, until a finished turn takes them. */
  private measured: PerceivedMarks | null = null;
  private readonly o: Required<PerceivedLatencyOptions>;

  constructor(options: PerceivedLatencyOptions = {}) {
    this.o = { ...PERCEIVED_LATENCY_DEFAULTS, ...options };
  }

  /** One pair of readings at `at` ms (null: not measurable then). */
  level(at: number, input: number | null, output: number | null): void {
    const p = this.phase;
    const floor = p.name === 'speaking' ? Math.max(this.o.quietLevel, p.peak - this.o.speechRangeDb / 60) : this.o.speechLevel;
    const speaking = input !== null && input >= floor;
    const audible = output !== null && output >= this.o.answerLevel;
    if (speaking) {
      // speech (again): a question starts or goes on
      const peak = p.name === 'speaking' ? Math.max(p.peak, input) : input;
      this.phase = { name: 'speaking', lastLoudAt: at, peak };
      return;
    }
    if (p.name === 'speaking') {
      if (audible) this.answered(p.lastLoudAt, at);
      else if (at - p.lastLoudAt >= this.o.hangoverMs) this.phase = { name: 'ended', endAt: p.lastLoudAt };
    } else if (p.name === 'ended' && audible) {
      this.answered(p.endAt, at);
    }
  }

  private answered(speechEndAt: number, heardAt: number): void {
    this.measured = { speechEndAt, heardAt };
    this.phase = { name: 'idle' };
  }

  /**
   * The marks of the question just answered, for a finished voice turn; null when none were
   * measured (no speech heard, or no answer sound yet). Starts over for the next question.
   */
  take(): PerceivedMarks | null {
    const m = this.measured;
    this.measured = null;
    return m;
  }

  /** Forgets a question in progress (e.g. the connection changed). */
  reset(): void {
    this.phase = { name: 'idle' };
    this.measured = null;
  }
}
