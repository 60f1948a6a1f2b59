import type { CallTurn, HeardAnswer } from './types.js';

/** Who may cut an answer (`Turn.interruptedBy`). */
export type CutBy = 'caller' | 'app';
const CUT_BY: readonly CutBy[] = ['caller', 'app'];

/**
 * Who cut `turn`'s answer: `caller`, `app`, `unknown` (a page whose kb-voice predates
 * `interruptedBy`), or null when the caller heard it whole.
 */
export function cutBy(turn: CallTurn): CutBy | 'unknown' | null {
  if (!turn.interrupted) return null;
  const by = (turn as { interruptedBy?: unknown }).interruptedBy;
  return by === 'caller' || by === 'app' ? by : 'unknown';
}

function who(by: CutBy | 'unknown'): string {
  return by === 'unknown' ? 'the caller or the app (this kb-voice does not say which)' : `the ${by}`;
}

/**
 * Why a cut answer does not pass `toAnswer`, or undefined when it was heard whole: `the answer
 * was cut after 1200 ms by the caller: the caller did not hear it whole; ...`. `heard`: what the
 * page measured (omitted: not measured); `expecting`: what a test that expects the cut uses.
 */
export function cutProblem(turn: CallTurn, heard?: HeardAnswer, expecting = 'expect(call).toBeInterrupted()'): string | undefined {
  const by = cutBy(turn);
  if (by === null) return undefined;
  const after = heard?.ms == null ? '' : ` after ${heard.ms} ms`;
  // Where the words heard were not measured (a Node caller), the message does not guess them.
  const words = heard === undefined ? '' : heard.text.trim() ? ` (it got as far as ${JSON.stringify(clip(heard.text))})` : ' (none of its words were spoken)';
  return (
    `the answer was cut${after} by ${who(by)}: the caller did not hear it whole${words}; ` +
    `${expecting} if the test expects that`
  );
}

/** `toBeInterrupted({ by })`'s `by`, checked. */
export function checkCutBy(by: unknown): CutBy | undefined {
  if (by === undefined) return undefined;
  if (CUT_BY.includes(by as CutBy)) return by as CutBy;
  throw new TypeError(`kb-voice-qa: toBeInterrupted({ by }): by is 'caller' or 'app', got ${JSON.stringify(by)}`);
}

/**
 * Whether `turn` was cut as expected (`by` unset: by anyone); `received` says what happened, for
 * the failure message.
 */
export function judgeCut(turn: CallTurn, heard: HeardAnswer, by: CutBy | undefined): { pass: boolean; received: string } {
  const actual = cutBy(turn);
  const falses = turn.falseInterruptions ? `; ${turn.falseInterruptions} false interruption${turn.falseInterruptions === 1 ? '' : 's'} (paused, then resumed)` : '';
  if (actual === null) return { pass: false, received: `the answer was heard whole, not cut${falses}` };
  const after = heard.ms === null ? '' : ` after ${heard.ms} ms`;
  // An old kb-voice that does not say who cut it cannot pass a test that asks.
  const pass = by === undefined || actual === by;
  return { pass, received: `the answer was cut${after} by ${who(actual)}${falses}` };
}

function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `…${flat.slice(flat.length - max)}` : flat;
}

/** The reporter's mark of a turn's answer: `cut by caller after 1200 ms · 1 false interruption`, '' when heard whole without pauses. */
export function cutMark(turn: CallTurn, heardMs: number | null | undefined): string {
  const by = cutBy(turn);
  const marks: string[] = [];
  if (by !== null) marks.push(`cut${by === 'unknown' ? '' : ` by ${by}`}${typeof heardMs === 'number' ? ` after ${heardMs} ms` : ''}`);
  const falses = turn.falseInterruptions ?? 0;
  if (falses > 0) marks.push(`${falses} false interruption${falses === 1 ? '' : 's'}`);
  return marks.join(' · ');
}
