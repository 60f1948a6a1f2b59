import { describe, expect, it, vi } from 'vitest';
import { Heartbeat } from '../../src/client/heartbeat.js';
import { VoiceSession } from '../../src/client/index.js';
import { FakeClock, ScriptedService } from '../../src/testing/index.js';

describe('Heartbeat', () => {
  it('pings every interval and stays alive while something comes back', async () => {
    const clock = new FakeClock();
    const sent: number[] = [];
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock, intervalMs: 1000, send: (t) => sent.push(t), onDead });
    hb.start();
    for (let i = 0; i < 10; i++) {
      await clock.advance(1000);
      hb.alive();
    }
    expect(sent).toHaveLength(10);
    expect(sent[1]! - sent[0]!).toBe(1000); // stamped with the clock's time
    expect(onDead).not.toHaveBeenCalled();
    hb.stop();
  });

  it('declares the link dead once after 4 pings in a row got nothing back, and stops', async () => {
    const clock = new FakeClock();
    const send = vi.fn();
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock, intervalMs: 250, send, onDead });
    hb.start();
    await clock.advance(1000);
    expect(send).toHaveBeenCalledTimes(4);
    expect(onDead).not.toHaveBeenCalled();
    await clock.advance(250);
    expect(onDead).toHaveBeenCalledTimes(1);
    expect(hb.running).toBe(false);
    await clock.advance(10_000);
    expect(onDead).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledTimes(4);
  });

  it('counts a throwing send as a miss and a late answer as recovery', async () => {
    const clock = new FakeClock();
    let fail = true;
    const onDead = vi.fn();
    const hb = new Heartbeat({
      clock, intervalMs: 500, maxMissed: 2, onDead,
      send: () => {
        if (fail) throw new Error('channel closed');
      },
    });
    hb.start();
    await clock.advance(1000); // two misses
    fail = false;
    hb.alive();
    await clock.advance(1000);
    expect(onDead).not.toHaveBeenCalled();
    await clock.advance(500);
    expect(onDead).toHaveBeenCalledTimes(1);
  });

  it('0 turns it off', async () => {
    const clock = new FakeClock();
    const hb = new Heartbeat({ clock, intervalMs: 0, send: vi.fn(), onDead: vi.fn() });
    hb.start();
    expect(hb.running).toBe(false);
    expect(clock.pending).toBe(0);
  });
});

describe('dead path detection with the default settings', () => {
  it('a silently cut path is noticed within 1.5 s (1.0-1.25 s after the last pong) and recovered by a new offer', async () => {
    const clock = new FakeClock();
    const scripted = new ScriptedService({ clock });
    const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, heartbeatIntervalMs: undefined });
    await session.start();
    await clock.advance(5000); // pings answered: alive
    expect(session.state.status).toBe('connected');
    const cutAt = clock.now();
    scripted.cut();
    let noticedAt = 0;
    session.on('state', (s) => {
      if (s.status === 'reconnecting' && !noticedAt) noticedAt = clock.now();
    });
    for (let t = 0; t < 1500 && !noticedAt; t += 10) await clock.advance(10);
    expect(noticedAt - cutAt).toBeGreaterThanOrEqual(1000);
    expect(noticedAt - cutAt).toBeLessThanOrEqual(1250);
    await clock.advance(50);
    expect(session.state).toEqual({ status: 'connected', sessionId: 'scripted-session-1' });
    expect(scripted.offers.map((o) => o.session_id)).toEqual([undefined, 'scripted-session-1']);
    await session.end();
  });
});

describe('Heartbeat and a stalled event loop', () => {
  it('does not count pings whose answers this side could not read while its own timers were late', async () => {
    let now = 0;
    const timers: Array<() => void> = [];
    // A clock whose timers fire only when the test says, at whatever time the test sets.
    const clock = { now: () => now, setTimeout: (cb: () => void) => timers.push(cb), clearTimeout: () => undefined };
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock, intervalMs: 250, send: vi.fn(), onDead });
    hb.start();
    const tickAt = (t: number) => {
      now = t;
      timers.shift()!();
    };
    tickAt(250);
    tickAt(500);
    tickAt(750); // three unanswered pings
    tickAt(3000); // the loop stalled 2.25 s: that stretch is not counted
    tickAt(3250);
    tickAt(3500);
    expect(onDead).not.toHaveBeenCalled();
    tickAt(3750);
    tickAt(4000);
    expect(onDead).toHaveBeenCalledTimes(1);
  });
});
