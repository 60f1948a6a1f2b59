import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../src/relay/deadlines.js';

describe('Deadlines (the upstream calls\' time limits on one timer)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires each limit once its time has passed, in start order, and not before', () => {
    const limits = new Deadlines(1000);
    const expired: string[] = [];
    limits.start(() => expired.push('a'));
    vi.advanceTimersByTime(400);
    limits.start(() => expired.push('b'));
    vi.advanceTimersByTime(599);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(399);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a', 'b']);
    expect(limits.size).toBe(0);
  });

  it('uses one timer for any number of limits, and leaves none once every limit is cleared', () => {
    const limits = new Deadlines(1000);
    const started = Array.from({ length: 50 }, () => limits.start(() => expect.fail('cleared limits never expire')));
    expect(vi.getTimerCount()).toBe(1);
    for (const d of started.slice(0, 49)) limits.clear(d);
    expect(vi.getTimerCount()).toBe(1);
    limits.clear(started[49]!);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(limits.size).toBe(0);
  });

  it('a cleared limit does not expire while later ones still do; clearing twice or after expiry is harmless', () => {
    const limits = new Deadlines(100);
    const expired: number[] = [];
    const first = limits.start(() => expired.push(1));
    vi.advanceTimersByTime(50);
    const second = limits.start(() => expired.push(2));
    limits.clear(first);
    limits.clear(first);
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([2]);
    limits.clear(second);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a limit started after the others expired gets a timer of its own again', () => {
    const limits = new Deadlines(200);
    const expired: string[] = [];
    limits.start(() => expired.push('a'));
    vi.advanceTimersByTime(200);
    expect(vi.getTimerCount()).toBe(0);
    limits.start(() => expired.push('b'));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(200);
    expect(expired).toEqual(['a', 'b']);
  });
});
