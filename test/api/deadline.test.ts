import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from '../../src/api/deadline.js';
import { systemClock } from '../../src/clock.js';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('Deadline', () => {
  it('expires after timeoutMs (fake time): expired, not cancelled, a TimeoutError reason', () => {
    vi.useFakeTimers();
    const deadline = new Deadline(300, undefined, systemClock);
    vi.advanceTimersByTime(299);
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.remaining()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(deadline).toMatchObject({ expired: true, cancelled: false });
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('clear() stops the timer', () => {
    vi.useFakeTimers();
    const deadline = new Deadline(300, undefined, systemClock);
    deadline.clear();
    deadline.clear();
    vi.advanceTimersByTime(1_000);
    expect(deadline.signal.aborted).toBe(false);
  });

  it.each([['AbortSignal.any', false], ['no AbortSignal.any (older browsers)', true]])('the caller\'s abort is cancelled, not expired (%s)', (_name, old) => {
    if (old) vi.stubGlobal('AbortSignal', Object.assign(function () {}, { any: undefined, prototype: AbortSignal.prototype }));
    const caller = new AbortController();
    const deadline = new Deadline(10_000, caller.signal, systemClock);
    const reason = new Error('user');
    caller.abort(reason);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline).toMatchObject({ expired: false, cancelled: true });
    deadline.clear();
  });
});
