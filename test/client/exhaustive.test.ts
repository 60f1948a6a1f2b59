import { describe, expect, it } from 'vitest';
import type { EventHandlers } from '../../src/client/events.js';
import type { TurnEvent } from '../../src/client/turns.js';
import { ServerEvent } from '../../src/schemas/index.js';

// A new server event must fail to compile until each place that must handle it does
// (docs/architecture.md, "A new server event"): the session routes events through a map typed
// EventHandlers<ServerEvent>, the turn tracker ends its switch with `satisfies never`. These
// checks run in the typecheck (`@ts-expect-error` fails it if the error goes away) and at run time.

const noop = () => undefined;

describe('exhaustive server-event handling', () => {
  it('a handler map that misses an event of the union does not compile', () => {
    // @ts-expect-error 'turn.completed' (and the others) have no handler
    const missing: EventHandlers<ServerEvent> = { pong: noop, error: noop, 'session.ready': noop };
    const turnsOnly: EventHandlers<TurnEvent> = {
      'input.speech_started': noop, 'input.speech_stopped': noop, 'output.speech_started': noop, 'output.speech_stopped': noop,
      'output.speech_paused': noop, 'output.speech_resumed': noop, 'transcript.delta': noop, 'transcript.final': noop, 'turn.completed': noop,
    };
    expect(Object.keys(missing)).toHaveLength(3);
    expect(Object.keys(turnsOnly)).toHaveLength(9);
  });

  it('every server event of the schema is either a turn event or one the session handles itself', () => {
    const all = ServerEvent.def.options.map((o) => o.def.shape.type.def.values[0] as ServerEvent['type']);
    const turn: Record<TurnEvent['type'], true> = {
      'input.speech_started': true, 'input.speech_stopped': true, 'output.speech_started': true, 'output.speech_stopped': true,
      'output.speech_paused': true, 'output.speech_resumed': true, 'transcript.delta': true, 'transcript.final': true, 'turn.completed': true,
    };
    const session: Record<Exclude<ServerEvent['type'], TurnEvent['type']>, true> = { 'session.ready': true, pong: true, error: true };
    expect([...Object.keys(turn), ...Object.keys(session)].sort()).toEqual([...all].sort());
  });
});
