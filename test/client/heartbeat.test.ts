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
