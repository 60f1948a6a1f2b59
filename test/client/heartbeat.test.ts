import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/client/clock.js';
import { Heartbeat } from '../../src/client/heartbeat.js';

describe('Heartbeat', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('pings every interval and stays alive while pongs come back', () => {
    const sent: number[] = [];
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock: systemClock, intervalMs: 1000, send: (t) => sent.push(t), onDead });
    hb.start();
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(1000);
      hb.pong();
    }
    expect(sent).toHaveLength(10);
    expect(onDead).not.toHaveBeenCalled();
    hb.stop();
  });

  it('declares the link dead after 3 unanswered pings, once, and stops', () => {
    const send = vi.fn();
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock: systemClock, intervalMs: 1000, send, onDead });
    hb.start();
    vi.advanceTimersByTime(3000);
    expect(send).toHaveBeenCalledTimes(3);
    expect(onDead).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(onDead).toHaveBeenCalledTimes(1);
    expect(hb.running).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(onDead).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('counts a throwing send as a miss and a late pong as recovery', () => {
    let fail = true;
    const onDead = vi.fn();
    const hb = new Heartbeat({
      clock: systemClock, intervalMs: 500, maxMissed: 2, onDead,
      send: () => {
        if (fail) throw new Error('channel closed');
      },
    });
    hb.start();
    vi.advanceTimersByTime(1000); // two misses
    hb.pong();
    fail = false;
    vi.advanceTimersByTime(1000);
    expect(onDead).not.toHaveBeenCalled();
    vi.advanceTimersByTime(500);
    expect(onDead).toHaveBeenCalledTimes(1);
  });
});

// Issue 27: a hidden tab's timers run late (Chrome: once a minute after 5 minutes hidden) and a
// frozen tab's not at all; neither may look like a dead link. Time and timers are faked: a fake
// clock whose setTimeout callbacks the test fires itself, as the throttled browser would.
describe('Heartbeat in a background tab', () => {
  function throttledClock() {
    let now = 0;
    let pending: { at: number; fn: () => void } | undefined;
    return {
      clock: {
        now: () => now,
        setTimeout: (fn: () => void, ms: number) => (pending = { at: now + ms, fn }),
        clearTimeout: () => (pending = undefined),
      },
      /** Runs the pending timer at `at` (no earlier than it asked for), as a throttled page would. */
      fireAt(at: number) {
        const p = pending!;
        expect(at).toBeGreaterThanOrEqual(p.at);
        pending = undefined;
        now = at;
        p.fn();
      },
      get pending() { return pending; },
    };
  }

  it('stays alive for 10 minutes of once-a-minute timers while each ping is answered', () => {
    const t = throttledClock();
    const onDead = vi.fn();
    let sent = 0;
    const hb = new Heartbeat({ clock: t.clock, intervalMs: 1000, send: () => sent++, onDead });
    hb.start();
    for (let minute = 1; minute <= 10; minute++) {
      t.fireAt(minute * 60_000);
      hb.pong(); // the pong arrives right after the ping (data-channel events are not throttled)
    }
    expect(sent).toBe(10);
    expect(onDead).not.toHaveBeenCalled();
    expect(hb.running).toBe(true);
  });

  it('a page frozen for 5 minutes sends a fresh ping on thaw instead of judging the old one', () => {
    const t = throttledClock();
    const onDead = vi.fn();
    const send = vi.fn();
    const hb = new Heartbeat({ clock: t.clock, intervalMs: 1000, send, onDead });
    hb.start();
    t.fireAt(1000); // ping 1; then the page freezes before its pong is handled
    t.fireAt(301_000); // thawed: the timer runs before the queued pong
    expect(onDead).not.toHaveBeenCalled();
    expect(send).toHaveBeenCalledTimes(2);
    hb.heard(); // the queued pong (or any message) is handled
    t.fireAt(302_000);
    t.fireAt(303_000);
    expect(onDead).not.toHaveBeenCalled();
  });

  it('a dead link is still found with throttled timers: 3 unanswered pings over 3 intervals', () => {
    const t = throttledClock();
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock: t.clock, intervalMs: 1000, send: () => undefined, onDead });
    hb.start();
    t.fireAt(60_000);
    t.fireAt(120_000);
    t.fireAt(180_000);
    expect(onDead).not.toHaveBeenCalled();
    t.fireAt(240_000);
    expect(onDead).toHaveBeenCalledTimes(1);
  });

  it('any message from the service counts as a sign of life, not only pongs', () => {
    const t = throttledClock();
    const onDead = vi.fn();
    const hb = new Heartbeat({ clock: t.clock, intervalMs: 1000, send: () => undefined, onDead });
    hb.start();
    for (let s = 1; s <= 20; s++) {
      t.fireAt(s * 1000);
      if (s % 2 === 0) hb.heard(); // e.g. transcript events of a long answer
    }
    expect(onDead).not.toHaveBeenCalled();
  });
});
