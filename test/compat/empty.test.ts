/**
 * 204 per endpoint (#37 4): `null` where the spec allows no body (E15), a clear invalid_response
 * where a body is required (E1, E13), and the warmup never throwing, rejecting or staying
 * pending whatever it gets. (E4–E8: a 204 is their bare acknowledgement since #46.)
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import type { VoiceSessionApi } from '../../src/client/report.js';
import type { WarmupStatus } from '../../src/client/state.js';
import { Warmup, WARMUP_LIMIT_MS } from '../../src/client/warmup.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { AI } from '../helpers/samples.js';
import { json, raw, useUpstream, type Upstream } from './upstream.js';

let up: Upstream;
let api: ApiClient;
useUpstream({}, (u, a) => {
  up = u;
  api = a;
});

describe('204 per endpoint', () => {
  it('E15 (the spec\'s ignored deletion) resolves to null', async () => {
    up.next(raw('', 204));
    await expect(api.sessions.delete(AI, 'another-robots-session')).resolves.toBeNull();
  });

  const required: [string, (a: ApiClient) => Promise<unknown>][] = [
    // E4–E8 may answer a bare acknowledgement: their 204 is one (test/compat/variance.test.ts).
    ['E1', (a) => a.realtime.warmup(AI)],
    ['E13', (a) => a.realtime.usage(AI)],
  ];
  it.each(required)('%s: a 204 is invalid_response, not a null typed as an object', async (_id, call) => {
    up.next(raw('', 204));
    await expect(call(api)).rejects.toMatchObject({ code: 'invalid_response', status: 204, message: expect.stringContaining('no body') });
  });

  it('a 200 with an empty body is the same error', async () => {
    up.next(raw('', 200, { 'content-type': 'application/json' }));
    await expect(api.realtime.usage(AI)).rejects.toMatchObject({ code: 'invalid_response', status: 200 });
  });
});

describe('warmup never throws, rejects or stays pending', () => {
  /** A Warmup fired at once, with the statuses it reported. */
  function fire(warmup: VoiceSessionApi['realtime']['warmup']) {
    const clock = new FakeClock();
    const statuses: WarmupStatus[] = [];
    const api = { realtime: { warmup } } as unknown as VoiceSessionApi;
    const w = new Warmup({ aiId: AI, api }, clock, (status) => statuses.push(status));
    w.soon('sess-1');
    w.now();
    return { w, clock, statuses };
  }

  it('E1 answering 204 through the API client is failed, with no unhandled rejection', async () => {
    up.next(raw('', 204));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { w, clock, statuses } = fire((aiId, body) => api.realtime.warmup(aiId, body));
      await turnsUntil(() => w.status !== 'pending');
      await clock.settle();
      expect(statuses).toEqual(['pending', 'failed']);
      // Let any stray rejection surface before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it.each([
    ['null (a custom api\'s 204)', async () => null],
    ['a body without success', async () => ({})],
    ['success: "yes"', async () => ({ success: 'yes' })],
    ['a rejection', async () => Promise.reject(new Error('down'))],
  ])('%s is failed', async (_name, answer) => {
    const { w } = fire(answer as never);
    await turnsUntil(() => w.status !== 'pending');
    expect(w.status).toBe('failed');
  });

  it('a custom api that throws instead of rejecting is failed, and fire() does not throw', () => {
    const { w } = fire(() => {
      throw new Error('not a promise');
    });
    return turnsUntil(() => w.status === 'failed');
  });

  it('an answer that never comes is failed after WARMUP_LIMIT_MS (fake time), and a late one changes nothing', async () => {
    let answer!: (value: unknown) => void;
    const { w, clock, statuses } = fire(() => new Promise((resolve) => (answer = resolve)) as never);
    await clock.advance(WARMUP_LIMIT_MS - 1);
    expect(w.status).toBe('pending');
    await clock.advance(1);
    expect(w.status).toBe('failed');
    answer({ success: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(statuses).toEqual(['pending', 'failed']);
  });

  it('{ success: true } is ok (the emulator\'s answer)', async () => {
    up.next(json({ success: true }));
    const { w } = fire((aiId, body) => api.realtime.warmup(aiId, body));
    await turnsUntil(() => w.status === 'ok');
  });
});

/** Waits until `done()` holds, turn by turn (no sleeping; the test's own timeout bounds it). */
async function turnsUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}
