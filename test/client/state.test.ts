import { describe, expect, it } from 'vitest';
import { canTransition, isFinal, sessionIdOf, type SessionStatus } from '../../src/client/state.js';
import { VoiceSessionError } from '../../src/client/index.js';

const ALL: SessionStatus[] = ['idle', 'connecting', 'connected', 'reconnecting', 'ended', 'failed'];

describe('session state machine', () => {
  it('allows exactly the documented transitions', () => {
    const allowed = ALL.flatMap((from) => ALL.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual([
      'connected->ended', 'connected->failed', 'connected->reconnecting',
      'connecting->connected', 'connecting->ended', 'connecting->failed',
      'idle->connecting', 'idle->ended',
      'reconnecting->connected', 'reconnecting->ended', 'reconnecting->failed', 'reconnecting->reconnecting',
    ].sort());
  });

  it('knows final states and carried session ids', () => {
    expect(isFinal({ status: 'ended', reason: 'local' })).toBe(true);
    expect(isFinal({ status: 'failed', error: new VoiceSessionError('signaling_failed', 'x') })).toBe(true);
    expect(isFinal({ status: 'reconnecting', sessionId: 's', attempt: 1 })).toBe(false);
    expect(sessionIdOf({ status: 'connected', sessionId: 's1' })).toBe('s1');
    expect(sessionIdOf({ status: 'connecting' })).toBeUndefined();
  });

  it('errors carry a stable code, the cause, and the kb-voice base class', async () => {
    const { KbVoiceError } = await import('../../src/api/index.js');
    const cause = new Error('boom');
    const err = new VoiceSessionError('connection_lost', 'lost', { cause });
    expect(err).toBeInstanceOf(KbVoiceError);
    expect(err.code).toBe('connection_lost');
    expect(err.cause).toBe(cause);
    expect(err.name).toBe('VoiceSessionError');
  });
});
