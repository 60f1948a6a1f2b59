import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Deadlines, type Deadline } from '../../src/relay/deadlines.js';

describe('Deadlines (the upstream calls\' time limits on one timer)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
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

  it('uses one timer for any number of limits; once every limit is cleared it holds no process and goes when it fires', () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const limits = new Deadlines(1000);
    const started = Array.from({ length: 50 }, () => limits.start(() => expect.fail('cleared limits never expire')));
    expect(vi.getTimerCount()).toBe(1);
    const timer = setTimer.mock.results[0]!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(true);
    for (const d of started.slice(0, 49)) limits.clear(d);
    expect(timer.hasRef()).toBe(true);
    limits.clear(started[49]!);
    expect(timer.hasRef()).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
    expect(setTimer).toHaveBeenCalledTimes(1);
    expect(limits.size).toBe(0);
  });

  // bench 3's CPU profiles: the authorize hook's limit is started and cleared in one turn for every
  // request, and requests one at a time (a fixed rate) leave no limit pending between them: a timer
  // set and cleared per request.
  it('limits started and cleared one at a time share one timer, which holds the process only while one is pending', () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const limits = new Deadlines(1000);
    for (let i = 0; i < 100; i++) {
      const d = limits.start(() => expect.fail('cleared limits never expire'));
      expect((setTimer.mock.results.at(-1)!.value as NodeJS.Timeout).hasRef()).toBe(true);
      limits.clear(d);
      vi.advanceTimersByTime(5); // 500 ms in all: under one limit's time
    }
    expect(setTimer).toHaveBeenCalledTimes(1);
    expect((setTimer.mock.results[0]!.value as NodeJS.Timeout).hasRef()).toBe(false);
    // A limit started after the idle timer fired still expires on time.
    vi.advanceTimersByTime(500);
    expect(vi.getTimerCount()).toBe(0);
    const expired: number[] = [];
    limits.start(() => expired.push(Date.now()));
    const at = Date.now();
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual([at + 1000]);
  });

  it('a limit started while the idle timer waits expires at its own time, not the timer\'s', () => {
    const limits = new Deadlines(1000);
    limits.clear(limits.start(() => expect.fail('cleared')));
    vi.advanceTimersByTime(600);
    const expired: number[] = [];
    const at = Date.now();
    limits.start(() => expired.push(Date.now()));
    vi.advanceTimersByTime(400); // the idle timer fires: not due yet
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(600);
    expect(expired).toEqual([at + 1000]);
    expect(vi.getTimerCount()).toBe(0);
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

describe('Deadlines and the garbage collector', () => {
  // What the relay's CPU per request measured (bench 3): with the pending limits in a `Set`, once
  // the set's table was in the old generation every later request's objects survived the young
  // generation's collections and were promoted (~5.5 KB per request). Measured here without any
  // timing: the old generation's growth over many started-and-cleared limits, with explicit minor
  // collections only (a full one would free what was wrongly promoted and hide it).
  it('a cleared limit and what its expire callback holds die young, even once the limits\' own structure is old', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
    const oldSpaceUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
    const limits = new Deadlines(30_000);
    // A relay that was idle: its structure is promoted before the load begins.
    const first = limits.start(() => {});
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    limits.clear(first);
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    const before = oldSpaceUsed();
    const pending: Deadline[] = [];
    const count = 5000;
    for (let i = 0; i < count; i++) {
      const request = new Array<number>(128).fill(i); // ~1 KiB a request's closures hold
      pending.push(limits.start(() => void request.length));
      if (pending.length > 10) limits.clear(pending.shift()!);
      if (i % 100 === 0) gc({ type: 'minor' });
    }
    for (const d of pending.splice(0)) limits.clear(d);
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    const grewKiB = (oldSpaceUsed() - before) / 1024;
    // With a Set: 2735 KiB (every request's ~1 KiB promoted, half of them); this list: ~15 KiB.
    expect(grewKiB).toBeLessThan(256);
    expect(limits.size).toBe(0);
  });
});
