import { describe, expect, it } from 'vitest';
import {
  canTransition, checkTransition, IllegalTransitionError, isDevelopment, isFinal, sessionIdOf, STATUSES, TRANSITIONS, type SessionStatus,
} from '../../src/client/state.js';
import { VoiceSessionError } from '../../src/client/index.js';

/** The documented table (docs/client.md, "State machine"), written out pair by pair. */
const LEGAL = new Set([
  'idle->connecting', 'idle->ended',
  'connecting->connected', 'connecting->ending', 'connecting->failed',
  'connected->reconnecting', 'connected->ending', 'connected->ended',
  'reconnecting->reconnecting', 'reconnecting->connected', 'reconnecting->ending', 'reconnecting->ended',
  'ending->ended',
]);

const ALL: SessionStatus[] = ['idle', 'connecting', 'connected', 'reconnecting', 'ending', 'ended', 'failed'];
const PAIRS = ALL.flatMap((from) => ALL.map((to) => [from, to] as const));

describe('session state machine', () => {
  it('has exactly these statuses', () => {
    expect([...STATUSES].sort()).toEqual([...ALL].sort());
    expect(PAIRS).toHaveLength(49);
  });

  it.each(PAIRS.filter(([from, to]) => LEGAL.has(`${from}->${to}`)))('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(checkTransition(from, to, true)).toBe(true);
    expect(checkTransition(from, to, false)).toBe(true);
  });

  it.each(PAIRS.filter(([from, to]) => !LEGAL.has(`${from}->${to}`)))('refuses %s -> %s: thrown in development, ignored in production', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => checkTransition(from, to, true)).toThrow(IllegalTransitionError);
    expect(() => checkTransition(from, to, true)).toThrow(`illegal transition ${from} -> ${to}`);
    expect(checkTransition(from, to, false)).toBe(false);
  });

  it('the table lists nothing else', () => {
    const listed = Object.entries(TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from}->${to}`));
    expect(new Set(listed)).toEqual(LEGAL);
  });

  it('counts vitest (NODE_ENV=test) as development, NODE_ENV=production as production', () => {
    expect(isDevelopment()).toBe(true);
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      expect(isDevelopment()).toBe(false);
      expect(checkTransition('ended', 'connected')).toBe(false);
    } finally {
      process.env.NODE_ENV = previous;
    }
    expect(() => checkTransition('ended', 'connected')).toThrow(IllegalTransitionError);
  });

  it('knows final states and carried session ids', () => {
    expect(isFinal({ status: 'ended', reason: 'local' })).toBe(true);
    expect(isFinal({ status: 'failed', error: new VoiceSessionError('signaling_failed', 'x') })).toBe(true);
    expect(isFinal({ status: 'reconnecting', sessionId: 's', how: 'new-offer', attempt: 1 })).toBe(false);
    expect(isFinal({ status: 'ending', sessionId: 's', reason: 'local' })).toBe(false);
    expect(sessionIdOf({ status: 'connected', sessionId: 's1' })).toBe('s1');
    expect(sessionIdOf({ status: 'connecting', attempt: 1 })).toBeUndefined();
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
