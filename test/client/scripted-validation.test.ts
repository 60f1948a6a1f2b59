import { describe, expect, it } from 'vitest';
import { VoiceSession, type VoiceSessionError } from '../../src/client/index.js';
import { ScriptedService, type ScriptedEvent } from '../../src/testing/index.js';

// kb-voice/testing validates every event it sends with kb-voice/schemas' ServerEvent, as the
// emulator does: a script sending an event no service could send fails where it is written.

async function connected() {
  const scripted = new ScriptedService();
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
  const errors: VoiceSessionError[] = [];
  session.on('error', (e) => errors.push(e));
  await session.start();
  return { scripted, session, errors };
}

describe('ScriptedService validates what it sends', () => {
  it('throws on an event the schema rejects, and the client never sees it', async () => {
    const { scripted, session, errors } = await connected();
    const bad = { type: 'transcript.delta', turn_id: 1, role: 'robot', delta: 'x' } as unknown as ScriptedEvent;
    expect(() => scripted.send(bad)).toThrow(/ScriptedService: invalid server event transcript\.delta/);
    const noTurn = { type: 'turn.completed', turn_id: 0 } as unknown as ScriptedEvent;
    expect(() => scripted.send(noTurn)).toThrow(/invalid server event turn\.completed/);
    expect(errors).toEqual([]); // nothing reached the client's decoder
    expect(session.getSnapshot().live).toBeNull();
    await session.end({ mode: 'immediate' });
  });

  it('sends valid events, and sendRaw still sends anything (to test the client against garbage)', async () => {
    const { scripted, session, errors } = await connected();
    scripted.turn('Hours?', 'Nine to five.');
    expect(session.turns.map((t) => t.answer)).toEqual(['Nine to five.']);
    scripted.sendRaw('{not json');
    expect(errors.map((e) => e.code)).toEqual(['protocol_error']);
    await session.end({ mode: 'immediate' });
  });
});
