import { describe, expect, it } from 'vitest';
import type { ServerEventOf } from 'kb-voice/schemas';
import { MISSED_PER_SESSION, MISSED_SESSIONS, MissedTurns } from '../../emulator/src/realtime/missed-turns.js';

const completed = (turn_id: number): ServerEventOf<'turn.completed'> => ({
  v: 1, type: 'turn.completed', turn_id, message_id: `m${turn_id}`, input: 'text', question: 'Q?', answer: 'A.',
  first_response_ms: null, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 0, interrupted: true,
});

describe('MissedTurns (completions a closed connection could not send)', () => {
  it('gives a session its completions once, in order', () => {
    const missed = new MissedTurns();
    missed.add('s1', completed(1));
    missed.add('s2', completed(7));
    missed.add('s1', completed(2));
    expect(missed.take('s1').map((e) => e.turn_id)).toEqual([1, 2]);
    expect(missed.take('s1')).toEqual([]);
    expect(missed.take('s2').map((e) => e.turn_id)).toEqual([7]);
  });

  it('keeps the newest MISSED_PER_SESSION of a session and the MISSED_SESSIONS most recent sessions', () => {
    const missed = new MissedTurns();
    for (let t = 1; t <= MISSED_PER_SESSION + 3; t++) missed.add('busy', completed(t));
    expect(missed.take('busy').map((e) => e.turn_id)).toEqual(Array.from({ length: MISSED_PER_SESSION }, (_, i) => i + 4));
    for (let s = 0; s <= MISSED_SESSIONS; s++) missed.add(`s${s}`, completed(1));
    expect(missed.take('s0')).toEqual([]); // the oldest session forgotten
    expect(missed.take(`s${MISSED_SESSIONS}`)).toHaveLength(1);
  });
});
