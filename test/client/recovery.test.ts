import { describe, expect, it } from 'vitest';
import { jitteredBackoff, VoiceSession, type ReconnectContext, type ReconnectPolicy, type SessionState, type VoiceSessionError } from '../../src/client/index.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

// Recovery of a dropped call on fake time: the policy's delays, the reconnectTimeoutMs budget,
// refusals and end() while reconnecting. No real time passes.

function setup(policy?: ReconnectPolicy, reconnectTimeoutMs?: number, maxRetryAfter?: number) {
  const clock = new FakeClock();
  const scripted = new ScriptedService({ clock });
  const session = new VoiceSession({
    aiId: 'robot-1', ...scripted.sessionOptions,
    ...(policy ? { reconnectPolicy: policy } : {}), ...(reconnectTimeoutMs ? { reconnectTimeoutMs } : {}),
    ...(maxRetryAfter !== undefined ? { maxRetryAfter } : {}),
  });
  const states: SessionState[] = [];
  const errors: VoiceSessionError[] = [];
  session.on('state', (s) => states.push(s));
  session.on('error', (e) => errors.push(e));
  return { clock, scripted, session, states, errors };
}

/** A policy that records what it was asked and answers from a list. */
function recording(delays: (number | null)[]) {
  const asked: ReconnectContext[] = [];
  return { asked, policy: { nextRetryDelayMs: (context: ReconnectContext) => (asked.push(context), delays[context.retryCount] ?? null) } };
}

describe('jitteredBackoff (the default ReconnectPolicy)', () => {
  it('tries first within 50 ms, then 250 ms doubling to 2 s, each scaled 0.5-1.5 at random', () => {
    const at = (random: number) => jitteredBackoff({ random: () => random });
    const delays = (random: number) => [0, 1, 2, 3, 4, 5, 6].map((retryCount) => at(random).nextRetryDelayMs({ retryCount, elapsedMs: 0 }));
    expect(delays(0)).toEqual([0, 125, 250, 500, 1000, 1000, 1000]);
    expect(delays(0.5)).toEqual([25, 250, 500, 1000, 2000, 2000, 2000]);
    expect(delays(0.999)).toEqual([49.95, 375, 750, 1499, 2998, 2998, 2998]);
  });

  it('spreads 32 clients: no two share a first retry delay', () => {
    const policy = jitteredBackoff();
    const second = new Set(Array.from({ length: 32 }, () => policy.nextRetryDelayMs({ retryCount: 1, elapsedMs: 0 })));
    expect(second.size).toBeGreaterThan(16);
  });
});

describe('VoiceSession recovery (fake time)', () => {
  it('waits what the policy says before each new offer and tells it how many failed', async () => {
    const { asked, policy } = recording([10, 300, 700]);
    const { clock, scripted, session, states } = setup(policy);
    await session.start();
    scripted.failSignaling({ status: 503 }, { status: 503 });
    scripted.drop();
    expect(session.state).toEqual({ status: 'reconnecting', sessionId: 'scripted-session-1', how: 'new-offer', attempt: 1, cause: 'connection_lost' });
    await clock.advance(9);
    expect(scripted.offers).toHaveLength(1); // still waiting: 10 ms
    await clock.advance(1);
    expect(scripted.offers).toHaveLength(2); // failed (503)
    await clock.advance(299);
    expect(scripted.offers).toHaveLength(2);
    await clock.advance(1);
    expect(scripted.offers).toHaveLength(3); // failed again
    await clock.advance(700);
    expect(scripted.offers).toHaveLength(4);
    expect(session.state).toEqual({ status: 'connected', sessionId: 'scripted-session-1' });
    expect(asked.map((c) => [c.retryCount, c.elapsedMs])).toEqual([[0, 0], [1, 10], [2, 310]]);
    expect(asked[1]!.retryReason).toMatchObject({ code: 'service_unavailable' });
    expect(states.filter((s) => s.status === 'reconnecting').map((s) => s.status === 'reconnecting' && s.attempt)).toEqual([1, 2, 3]);
    await session.end();
  });

  it('gives up after reconnectTimeoutMs with connection_lost, keeping the last real failure as cause', async () => {
    const { clock, scripted, session, errors } = setup(undefined, 3000);
    await session.start();
    scripted.failSignaling(...Array.from({ length: 20 }, () => ({ status: 503 })));
    scripted.drop();
    // Every try fails at once here; the last one starts when 500 ms (MIN_ATTEMPT_MS) are left.
    await clock.advance(2499);
    expect(session.state.status).toBe('reconnecting');
    await clock.advance(1);
    expect(session.state).toEqual({ status: 'ended', sessionId: 'scripted-session-1', reason: 'connection_lost' });
    expect(errors.at(-1)).toMatchObject({ code: 'connection_lost', cause: { code: 'service_unavailable' } });
    expect(scripted.tracks[0]!.readyState).toBe('ended');
  });

  it("waits out a 503's Retry-After before the next offer (the policy said 10 ms)", async () => {
    const { clock, scripted, session } = setup({ nextRetryDelayMs: ({ retryCount }) => (retryCount === 0 ? 0 : 10) }, 30_000);
    await session.start();
    scripted.failSignaling({ status: 503, retryAfterSeconds: 3 });
    scripted.drop();
    await clock.advance(0);
    expect(scripted.offers).toHaveLength(2); // the first new offer: refused, come back in 3 s
    await clock.advance(2_999);
    expect(scripted.offers).toHaveLength(2);
    expect(session.state.status).toBe('reconnecting');
    await clock.advance(1);
    expect(scripted.offers).toHaveLength(3);
    expect(session.state).toEqual({ status: 'connected', sessionId: 'scripted-session-1' });
    await session.end();
  });

  it('a Retry-After longer than maxRetryAfter (or the time left) ends the recovery at once, the 503 as cause', async () => {
    const { clock, scripted, session, errors } = setup(undefined, 60_000, 10_000);
    await session.start();
    scripted.failSignaling({ status: 503, retryAfterSeconds: 30 });
    scripted.drop();
    await clock.advance(100);
    expect(session.state).toMatchObject({ status: 'ended', reason: 'connection_lost' });
    expect(errors.at(-1)).toMatchObject({ code: 'connection_lost', cause: { code: 'service_unavailable', retryAfterMs: 30_000 } });
    expect(scripted.offers).toHaveLength(2);
  });

  it('stops at once when the service refuses the session (404)', async () => {
    const { clock, scripted, session, errors } = setup();
    await session.start();
    scripted.failSignaling({ status: 404 });
    scripted.drop();
    await clock.advance(50);
    expect(session.state).toMatchObject({ status: 'ended', reason: 'connection_lost' });
    expect(errors.at(-1)).toMatchObject({ code: 'connection_lost', cause: { code: 'not_found' } });
    expect(scripted.offers).toHaveLength(2);
  });

  it('a policy answering null gives up', async () => {
    const { clock, scripted, session } = setup({ nextRetryDelayMs: () => null });
    await session.start();
    scripted.drop();
    await clock.settle();
    expect(session.state).toMatchObject({ status: 'ended', reason: 'connection_lost' });
    expect(scripted.offers).toHaveLength(1);
  });

  it('end() while reconnecting passes ending and stops trying', async () => {
    const { clock, scripted, session, states } = setup({ nextRetryDelayMs: () => 1000 });
    await session.start();
    scripted.drop();
    await session.end();
    await clock.advance(5000);
    expect(states.map((s) => s.status)).toEqual(['connecting', 'connected', 'reconnecting', 'ending', 'ended']);
    expect(scripted.offers).toHaveLength(1);
  });
});
