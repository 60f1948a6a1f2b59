/**
 * `Turn.perceivedLatencyMs`: from the end of the caller's speech as the client heard it (its
 * microphone level) to the first audible sound of the answer at the client (the remote track's
 * level), on the level readings `LevelMonitor` takes (0..1 on a −60..0 dBFS scale, every 100 ms).
 *
 * - Speech: an input reading at or above `speechLevel`. It ends at the last such reading once
 *   `hangoverMs` passed below it (a pause inside a sentence is not its end).
 * - Answer: the first output reading at or above `answerLevel` after that end; it also ends the
 *   speech at once when it comes within the hangover (the service answered faster).
 * - Speech resuming before any answer sound continues the same question; speech after an answer
 *   sound (a barge-in, the next question) starts a new one, the measured latency kept for the turn.
 * The readings' period bounds the error (±1 reading at each end).
 */
export interface PerceivedLatencyOptions {
  /** Input level counted as speech; default 0.5 (−30 dBFS). */
  speechLevel?: number;
  /** Output level counted as audible; default 0.4 (−36 dBFS). */
  answerLevel?: number;
  /** Quiet time after the last speech reading before the speech counts as ended (ms); default 400. */
  hangoverMs?: number;
}

export const PERCEIVED_LATENCY_DEFAULTS = Object.freeze({ speechLevel: 0.5, answerLevel: 0.4, hangoverMs: 400 });

type Phase =
  | { name: 'idle' }
  | { name: 'speaking'; lastLoudAt: number }
  | { name: 'ended'; endAt: number };

export class PerceivedLatencyMeter {
  private phase: Phase = { name: 'idle' };
  /** The latest question's latency, until a finished turn takes it. */
  private measured: number | null = null;
  private readonly o: Required<PerceivedLatencyOptions>;

  constructor(options: PerceivedLatencyOptions = {}) {
    this.o = { ...PERCEIVED_LATENCY_DEFAULTS, ...options };
  }

  /** One pair of readings at `at` ms (null: not measurable then). */
  level(at: number, input: number | null, output: number | null): void {
    const speaking = input !== null && input >= this.o.speechLevel;
    const audible = output !== null && output >= this.o.answerLevel;
    const p = this.phase;
    if (speaking) {
      // speech (again): a question starts or goes on
      this.phase = { name: 'speaking', lastLoudAt: at };
      return;
    }
    if (p.name === 'speaking') {
      if (audible) this.answered(at - p.lastLoudAt);
      else if (at - p.lastLoudAt >= this.o.hangoverMs) this.phase = { name: 'ended', endAt: p.lastLoudAt };
    } else if (p.name === 'ended' && audible) {
      this.answered(at - p.endAt);
    }
  }

  private answered(latencyMs: number): void {
    this.measured = Math.round(Math.max(0, latencyMs));
    this.phase = { name: 'idle' };
  }

  /**
   * The latency of the question just answered, for a finished voice turn; null when none was
   * measured (no speech heard, or no answer sound yet). Starts over for the next question.
   */
  take(): number | null {
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
