import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VoiceSession, type TranscriptUpdate, type Turn, type VoiceSessionError } from '../../src/client/index.js';
import { FakeServer } from '../client/helpers/fake-server.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';

// Issue 10, client limits, against a hostile answering peer (simple-peer on @roamhq/wrtc): one
// turn's transcript is capped, a completion of a turn that never started is refused, and a flood
// of an unknown event type gives one protocol_error, not one per message.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function connected() {
  const server = new FakeServer();
  const mic = new FakeMicrophone();
  const session = new VoiceSession({ aiId: 'robot-1', api: server.api, wrtc: wrtc as never, microphone: mic.open, heartbeatIntervalMs: 200 });
  const errors: VoiceSessionError[] = [];
  const turns: Turn[] = [];
  const transcripts: TranscriptUpdate[] = [];
  session.on('error', (e) => errors.push(e));
  session.on('turn', (t) => turns.push(t));
  session.on('transcript', (t) => transcripts.push(t));
  cleanups.push(async () => {
    await session.end({ mode: 'immediate' });
    server.close();
    mic.close();
  });
  await session.start();
  return { call: server.calls[0]!, session, errors, turns, transcripts };
}

const completed = (turnId: number, answer = 'a') => ({
  type: 'turn.completed', turn_id: turnId, message_id: `m${turnId}`, input: 'text', question: 'q', answer,
  first_response_ms: 300, agent_build_ms: 0, input_duration_ms: 0, output_duration_ms: 900, interrupted: false,
});

describe('client limits', () => {
  it('caps one turn\'s transcript at 65536 characters: truncated, one protocol_error', async () => {
    const { call, errors, transcripts, turns } = await connected();
    call.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    const chunk = 'x'.repeat(4000);
    for (let i = 0; i < 20; i++) call.send({ type: 'transcript.delta', turn_id: 1, role: 'assistant', delta: chunk });
    call.send(completed(1, chunk.repeat(20)));
    await vi.waitFor(() => expect(turns).toHaveLength(1), { timeout: 5000 });
    expect(Math.max(...transcripts.map((t) => t.text.length))).toBe(65536);
    expect(turns[0]!.answer).toHaveLength(65536);
    expect(errors.map((e) => e.code)).toEqual(['protocol_error']);
  });

  it('turn.completed for a turn that never started is a protocol_error, not a new turn', async () => {
    const { call, errors, turns, session } = await connected();
    call.send(completed(5));
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5000 });
    expect(errors[0]!.code).toBe('protocol_error');
    expect(turns).toHaveLength(0);
    expect(session.turns).toHaveLength(0);
  });

  it('a flood of an unknown v1 event type gives one protocol_error per type', async () => {
    const { call, errors, session } = await connected();
    for (let i = 0; i < 200; i++) call.send({ type: 'conversation.sparkle', i });
    call.send({ type: 'conversation.glitter' });
    call.send({ type: 'transcript.final', turn_id: 1, role: 'user', text: 'q' });
    call.send(completed(1));
    await vi.waitFor(() => expect(session.turns).toHaveLength(1), { timeout: 5000 });
    expect(errors.map((e) => e.code)).toEqual(['protocol_error', 'protocol_error']);
    expect(errors[0]!.message).toContain('conversation.sparkle');
    expect(session.state.status).toBe('connected');
  });
});
