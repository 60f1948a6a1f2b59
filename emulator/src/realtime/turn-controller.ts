import { settleWithin } from '../time.js';
import type { StreamingPlayback } from './audio-out.js';

/**
 * The turns of one call, in one place: numbering, the turn being answered, the queue and barge-in.
 * Protocols (kb-voice v1, OpenAI) decide *when* a turn starts or is cut, from what the caller says
 * and does; the controller decides what that means for the turns, and runs each through the
 * injected `run` (the emulator's turn runner: recognize → answer → speech → record).
 */

/** What a turn answers: a spoken utterance or a typed question. */
export type TurnInput =
  | {
      kind: 'voice'; turnId: number; audio: Int16Array; sampleRate: number; speechMs: number; endOfInput: number;
      /** The words QA scripted for this utterance (`PUT /_emulator/script`): used instead of recognition. */
      scripted?: string;
    }
  | { kind: 'text'; turnId: number; text: string; endOfInput: number };

/** A turn being answered: what barge-in, an explicit interrupt and the call's end act on. */
export interface ActiveTurn {
  readonly id: number;
  readonly abort: AbortController;
  interrupted: boolean;
  /** The answer is held by a possible interruption (its audio, once it starts, waits). */
  paused: boolean;
  /** Sounds that paused the answer and did not interrupt it (it resumed). */
  falseInterruptions: number;
  /** The answer's audio, once it started (set by the turn runner). */
  playback?: StreamingPlayback;
}

export interface TurnControllerOptions {
  /** Number of the first turn (a reconnection continues the session's numbering). */
  firstTurnId: number;
  /**
   * `auto` (default): speech or a typed question cuts the answer in progress (barge-in);
   * `off`: they wait, queued, and are answered in order once it finished. Changeable with
   * {@link TurnController.setInterruptions} (OpenAI `interrupt_response`).
   */
  interruptions?: 'auto' | 'off';
  /** Answers one turn; resolves when it is over (recorded, its last event sent). */
  run(input: TurnInput, turn: ActiveTurn): Promise<void>;
  /** A turn's run failed (the protocol tells the caller). */
  failed(input: TurnInput, error: unknown): void;
}

export class TurnController {
  readonly #opts: TurnControllerOptions;
  #nextTurnId: number;
  #active: ActiveTurn | undefined;
  readonly #queue: TurnInput[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #idle: Array<() => void> = [];
  #closed = false;
  #mode: 'auto' | 'off';

  constructor(opts: TurnControllerOptions) {
    if (!Number.isInteger(opts.firstTurnId) || opts.firstTurnId < 1) throw new RangeError(`firstTurnId must be an integer >= 1, got ${opts.firstTurnId}`);
    this.#opts = opts;
    this.#mode = opts.interruptions ?? 'auto';
    this.#nextTurnId = opts.firstTurnId;
  }

  setInterruptions(mode: 'auto' | 'off'): void {
    this.#mode = mode;
  }

  /** Takes the next turn number (numbers are never reused, also for inputs that end up queued). */
  allocate(): number {
    return this.#nextTurnId++;
  }

  /** The number the next turn would take: what a reconnection continues from. */
  get nextTurnId(): number {
    return this.#nextTurnId;
  }

  /** The turn being answered, if any. */
  get active(): ActiveTurn | undefined {
    return this.#active;
  }

  /** Inputs waiting for the answer in progress (interruptions off). */
  get queued(): number {
    return this.#queue.length;
  }

  get bargeInAllowed(): boolean {
    return this.#mode !== 'off';
  }

  /**
   * The caller started speaking or typing over the answer: cuts it when barge-in is allowed.
   * Returns whether a turn was cut.
   */
  bargeIn(): boolean {
    return this.bargeInAllowed ? this.interrupt() : false;
  }

  /** Cuts the turn being answered (an explicit interrupt: whatever the barge-in policy). */
  interrupt(): boolean {
    const turn = this.#active;
    if (!turn) return false;
    turn.interrupted = true;
    turn.abort.abort();
    turn.playback?.stop('interrupted');
    return true;
  }

  /**
   * Holds the answer in progress (the caller may be interrupting): its audio stops where it is, or
   * waits to start. Returns whether there was an answer to hold.
   */
  pause(): boolean {
    const turn = this.#active;
    if (!turn || turn.interrupted || turn.paused) return false;
    turn.paused = true;
    turn.playback?.pause();
    return true;
  }

  /**
   * Continues a held answer from where it stopped; `falseInterruption` counts the sound that held
   * it on the turn. Returns whether an answer was resumed.
   */
  resume(falseInterruption: boolean): boolean {
    const turn = this.#active;
    if (!turn || !turn.paused) return false;
    turn.paused = false;
    if (falseInterruption) turn.falseInterruptions++;
    turn.playback?.resume();
    return true;
  }

  /** Answers `input` now, or queues it behind the answer in progress when barge-in is off. */
  start(input: TurnInput): 'started' | 'queued' | 'closed' {
    if (this.#closed) return 'closed';
    if (this.#active && !this.bargeInAllowed) {
      this.#queue.push(input);
      return 'queued';
    }
    this.#run(input);
    return 'started';
  }

  #run(input: TurnInput): void {
    const turn: ActiveTurn = { id: input.turnId, abort: new AbortController(), interrupted: false, paused: false, falseInterruptions: 0 };
    this.#active = turn;
    const run: Promise<void> = this.#opts.run(input, turn)
      .catch((err: unknown) => this.#opts.failed(input, err))
      .finally(() => {
        this.#running.delete(run);
        if (this.#active === turn) this.#active = undefined;
        const next = this.#closed || this.#active ? undefined : this.#queue.shift();
        if (next) this.#run(next);
        else if (!this.#active) for (const resolve of this.#idle.splice(0)) resolve();
      });
    this.#running.add(run);
  }

  /** Resolves once no turn is being answered and none is queued. */
  whenIdle(): Promise<void> {
    if (!this.#active && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * The call ends: queued inputs are dropped, the answer in progress stops (`reason`: `ended`) and
   * is still recorded; resolves when the running turns settled, or after `settleMs`.
   */
  async end(settleMs = 2000): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    const turn = this.#active;
    if (turn) {
      turn.abort.abort();
      turn.playback?.stop('ended');
    }
    // A turn stuck in a slow brain must not block closing.
    await settleWithin(Promise.allSettled([...this.#running]), settleMs);
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}


