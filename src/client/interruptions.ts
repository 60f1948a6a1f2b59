import type { ServerEventOf } from '../schemas/realtime-events.js';

/** Who cut an answer: the caller speaking (or pressing talk), the app (`interrupt()`, a typed question), or nobody (also: the call's end cut it). */
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
 * but not by whom, so the session marks the turn in progress when it cuts it itself (`interrupt()`,
 * a typed question: the app; `talk(true)` over an answer: the caller); every other cut answer was
 * cut by the caller's speech. A cut asked for while a typed question is on its way but no turn of
 * it is known yet (a typed question right after another: the service may have started the first
 * answer, its events still on the way) applies to the next turn that completes: the service
 * completes a turn it cut before the turn that cut it, so if that next completion was not cut, the
 * request cut nothing. With nothing asked and nothing known in progress, a cut marks nothing.
 */
export class InterruptionLedger {
  private readonly marked = new Map<number, 'caller' | 'app'>();
  /** A cut asked for with no turn known to be in progress, until the next completion. */
  private pending: 'caller' | 'app' | undefined;
  /** Typed questions sent whose turn has not completed yet. */
  private typedInFlight = 0;

  /** A typed question was sent (after {@link cut} for the answer it replaces). */
  typed(): void {
    this.typedInFlight++;
  }

  /** The session cut turn `turnId`'s answer (`by`: who asked for it); undefined: no turn known in progress. */
  cut(by: 'caller' | 'app', turnId: number | undefined): void {
    if (turnId === undefined) {
      if (this.typedInFlight > 0) this.pending ??= by;
      return;
    }
    if (this.marked.has(turnId)) return;
    this.marked.set(turnId, by);
    if (this.marked.size > MAX_MARKED) this.marked.delete(this.marked.keys().next().value!);
  }

  /**
   * `Turn.interruptedBy` of a completed turn. `ending`: the call is ending (`end()`), so an answer
   * cut without a mark was cut by the end, which is no interruption (null, not the caller's).
   */
  interruptedBy(event: ServerEventOf<'turn.completed'>, ending = false): InterruptedBy {
    const by = this.marked.get(event.turn_id) ?? this.pending;
    this.marked.delete(event.turn_id);
    this.pending = undefined;
    if (event.input === 'text' && this.typedInFlight > 0) this.typedInFlight--;
    return event.interrupted ? by ?? (ending ? null : 'caller') : null;
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
