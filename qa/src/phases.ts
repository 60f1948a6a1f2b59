import { TIMING_PHASES, type TimingPhase } from 'kb-voice';
import type { CallTurn } from './types.js';

export { TIMING_PHASES, type TimingPhase };

/** A phase's duration in a turn (ms); null when not measured, or the page's kb-voice has no `Turn.timing`. */
export function phaseMs(turn: CallTurn, phase: TimingPhase): number | null {
  const value = (turn as Partial<CallTurn>).timing?.[`${phase}Ms`];
  return typeof value === 'number' ? value : null;
}

/** Checks a `phase` option (a typo must not read as "not measured"). */
export function checkPhase(phase: unknown, where: string): TimingPhase {
  if (typeof phase === 'string' && (TIMING_PHASES as readonly string[]).includes(phase)) return phase as TimingPhase;
  throw new TypeError(`kb-voice-qa: ${where}: phase is one of ${TIMING_PHASES.join(', ')}, got ${JSON.stringify(phase)}`);
}

/** Every measured value of each phase over `turns`. */
export function phaseValues(turns: readonly CallTurn[]): Record<TimingPhase, number[]> {
  const out = Object.fromEntries(TIMING_PHASES.map((p) => [p, [] as number[]])) as Record<TimingPhase, number[]>;
  for (const turn of turns) {
    for (const phase of TIMING_PHASES) {
      const ms = phaseMs(turn, phase);
      if (ms !== null) out[phase].push(ms);
    }
  }
  return out;
}

/** `endpointing 612 ms · service 48 ms · …` for the measured phases; '' when none is. */
export function describePhases(turn: CallTurn): string {
  return TIMING_PHASES.flatMap((p) => {
    const ms = phaseMs(turn, p);
    return ms === null ? [] : [`${p} ${Math.round(ms)} ms`];
  }).join(' · ');
}
