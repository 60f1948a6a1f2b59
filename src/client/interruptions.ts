import type { ServerEvent, ServerEventOf } from '../schemas/realtime-events.js';

/** Who cut an answer: the caller speaking (or pressing talk), the app (`interrupt()`, a typed question), or nobody. */
export type InterruptedBy = 'caller' | 'app' | null;

/** `report().interruptions`: answers cut by the caller, cut by the app, and false interruptions (sounds that paused an answer that then resumed). */
export interface InterruptionCounts {
  byCaller: number;
  byApp: number;
  false: number;
}

/** Turns whose cutter is remembered at most (a service that never completes them cannot grow it). */
const MAX_MARKED = 64;

/**
 * Who interrupted which answer: the protocol says an answer was cut (`turn.completed.interrupted`)
 * but not by whom, so the session tells this ledger when it cut one itself (`interrupt()`, a typed
 * question: the app; `talk(true)` over an answer: the caller), and every other cut answer was cut by
 * the caller's speech. It follows the answer playing from the protocol's events.
 */
export class InterruptionLedger {
  /** The turn whose answer is under way (first output event to `output.speech_stopped`). */
  private answering: number | undefined;
  /** The most recent turn that showed any event and has not completed. */
  private latest: number | undefined;
  private readonly marked = new Map<number, Exclude<InterruptedBy, null>>();

  observe(event: ServerEvent): void {
    if (event.type === 'turn.completed') {
      if (this.latest === event.turn_id) this.latest = undefined;
      if (this.answering === event.turn_id) this.answering = undefined;
      return;
    }
    if (!('turn_id' in event) || typeof event.turn_id !== 'number') return;
    // Speech heard over an answer that it did not cut is no turn of its own (no event follows it).
    if (event.type === 'input.speech_stopped' && event.false_interruption) return;
    if (event.type === 'input.speech_started' || event.type === 'input.speech_stopped') return;
    this.latest = event.turn_id;
    if (event.type === 'output.speech_started') this.answering = event.turn_id;
    if (event.type === 'output.speech_stopped' && this.answering === event.turn_id) this.answering = undefined;
  }

  /** The session cut the answer under way (`by`: who asked for it). A no-op when no answer is under way. */
  cut(by: Exclude<InterruptedBy, null>): void {
    const turn = this.answering ?? this.latest;
    if (turn === undefined || this.marked.has(turn)) return;
    this.marked.set(turn, by);
    if (this.marked.size > MAX_MARKED) this.marked.delete(this.marked.keys().next().value!);
  }

  /** `Turn.interruptedBy` of a completed turn. */
  interruptedBy(event: ServerEventOf<'turn.completed'>): InterruptedBy {
    const by = this.marked.get(event.turn_id);
    this.marked.delete(event.turn_id);
    if (!event.interrupted) return null;
    return by ?? 'caller';
  }

  /** Forget which answer is under way (the connection dropped; marks of finished turns stay). */
  connectionLost(): void {
    this.answering = undefined;
    this.latest = undefined;
  }
}

/** `report().interruptions` over the call's turns. */
export function countInterruptions(turns: readonly { interruptedBy?: InterruptedBy; falseInterruptions?: number }[]): InterruptionCounts {
  const counts: InterruptionCounts = { byCaller: 0, byApp: 0, false: 0 };
  for (const turn of turns) {
    if (turn.interruptedBy === 'caller') counts.byCaller++;
    else if (turn.interruptedBy === 'app') counts.byApp++;
    counts.false += turn.falseInterruptions ?? 0;
  }
  return counts;
}
