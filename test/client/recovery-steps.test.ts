import { describe, expect, it, vi } from 'vitest';
import { Recovery, type DroppedLink, type RecoveryReport } from '../../src/client/recovery.js';
import { FakeClock } from '../../src/testing/index.js';

// Recovery reports and asks; it never opens an attempt itself: run() yields an AttemptRequest for
// each new offer and the caller (the session) answers with the outcome. Fake time throughout.

function setup(delays: (number | null)[], options: { reconnectTimeoutMs?: number; offline?: boolean } = {}) {
  const clock = new FakeClock();
  const network = { offline: options.offline ?? false };
  const report = { trying: vi.fn(), restored: vi.fn(), gaveUp: vi.fn() } satisfies RecoveryReport;
  const recovery = new Recovery({
    clock, network, probes: true, connectTimeoutMs: 15_000, reconnectTimeoutMs: options.reconnectTimeoutMs ?? 15_000,
    policy: { nextRetryDelayMs: ({ retryCount }) => delays[retryCount] ?? null }, lastHeard: () => 0,
  }, report);
  const dropped = { restart: () => undefined, send: vi.fn(), abort: vi.fn() } satisfies DroppedLink;
  return { clock, network, report, recovery, dropped, signal: new AbortController() };
}

describe('Recovery asks the session for attempts', () => {
  it('yields one request per try, paced by the policy, and reports restored with the attempt it was given', async () => {
    const { clock, report, recovery, dropped, signal } = setup([0, 300]);
    const steps = recovery.run('s-1', dropped, signal.signal);
    const first = await steps.next();
    expect(first.value).toEqual({ sessionId: 's-1', timeoutMs: 15_000 });
    expect(dropped.abort).toHaveBeenCalledOnce(); // the dead attempt is closed before a new offer
    expect(report.trying).toHaveBeenLastCalledWith('new-offer', 1);
    let second: IteratorResult<unknown> | undefined;
    void steps.next({ error: Object.assign(new Error('busy'), { status: 503 }) }).then((r) => (second = r));
    await clock.advance(299);
    expect(second).toBeUndefined(); // pausing 300 ms
    expect(report.trying).toHaveBeenLastCalledWith('new-offer', 2);
    await clock.advance(1);
    expect(second?.value).toEqual({ sessionId: 's-1', timeoutMs: 15_000 - 300 });
    const attempt = { restart: () => undefined, send: () => 1, abort: () => undefined } satisfies DroppedLink;
    expect((await steps.next({ attempt })).done).toBe(true);
    expect(report.restored).toHaveBeenCalledWith(attempt);
    expect(report.gaveUp).not.toHaveBeenCalled();
  });

  it('a refusal (404) ends the tries: gave up with it as the cause', async () => {
    const { report, recovery, dropped, signal } = setup([0, 0, 0]);
    const steps = recovery.run('s-1', dropped, signal.signal);
    await steps.next();
    const refusal = Object.assign(new Error('gone'), { status: 404 });
    expect((await steps.next({ error: refusal })).done).toBe(true);
    expect(report.gaveUp).toHaveBeenCalledOnce();
    expect(report.gaveUp.mock.calls[0]![0]).toMatchObject({ code: 'connection_lost', cause: refusal });
  });

  it('offline: asks for nothing until the network is back', async () => {
    const { network, report, recovery, dropped, signal } = setup([0], { offline: true });
    const steps = recovery.run('s-1', dropped, signal.signal);
    let first: IteratorResult<unknown> | undefined;
    void steps.next().then((r) => (first = r));
    await Promise.resolve();
    expect(report.trying).toHaveBeenCalledWith('ice-restart', 1);
    expect(first).toBeUndefined();
    network.offline = false;
    recovery.networkChanged();
    await vi.waitFor(() => expect(first?.value).toEqual({ sessionId: 's-1', timeoutMs: 15_000 }));
  });

  it('end() (abort) while waiting for the network ends the run quietly', async () => {
    const { report, recovery, dropped, signal } = setup([0], { offline: true });
    const steps = recovery.run('s-1', dropped, signal.signal);
    const done = steps.next();
    signal.abort();
    expect((await done).done).toBe(true);
    expect(report.gaveUp).not.toHaveBeenCalled();
    expect(dropped.abort).not.toHaveBeenCalled(); // the session closes it; recovery made no try
  });
});

describe('Recovery probes a restarted link', () => {
  /** A recovery whose link restarts at once; the service was last heard `silentMs` before it runs. */
  async function restarted(silentMs: number) {
    const clock = new FakeClock();
    const report = { trying: vi.fn(), restored: vi.fn(), gaveUp: vi.fn() } satisfies RecoveryReport;
    const heard = { at: clock.now() };
    const recovery = new Recovery({
      clock, network: { offline: false }, probes: true, connectTimeoutMs: 15_000, reconnectTimeoutMs: 30_000,
      policy: { nextRetryDelayMs: () => 0 }, lastHeard: () => heard.at,
    }, report);
    const dropped = { restart: () => Promise.resolve(), send: vi.fn(() => 1), abort: vi.fn() } satisfies DroppedLink;
    await clock.advance(silentMs); // the path died; noticed that late
    return { clock, report, recovery, dropped, heard };
  }

  it('after a long silence, waits for the pong as long as SCTP may hold it (silence + 1 s), not 3 s (busy core, 2026-12-07)', async () => {
    const { clock, report, recovery, dropped } = await restarted(5000);
    void recovery.run('s-1', dropped, new AbortController().signal).next();
    await clock.advance(4000);
    expect(dropped.send).toHaveBeenCalledOnce(); // the probe's ping
    expect(dropped.abort).not.toHaveBeenCalled(); // still waiting: no new offer yet
    recovery.pong();
    await clock.advance(0);
    expect(report.restored).toHaveBeenCalledWith(dropped);
    expect(report.trying).not.toHaveBeenCalledWith('new-offer', expect.anything());
  });

  it('counts the silence from when the service was last heard', async () => {
    const { clock, recovery, dropped, heard } = await restarted(60_000);
    heard.at = clock.now(); // heard just now: a short probe again
    void recovery.run('s-1', dropped, new AbortController().signal).next();
    await clock.advance(2999);
    expect(dropped.abort).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(dropped.abort).toHaveBeenCalledOnce();
  });

  it.each([
    [500, 3000], // a short silence: 3 s
    [60_000, 10_000], // 10 s at most
  ])('after %i ms of silence, a restarted link silent for %i ms more is given up for a new offer', async (silentMs, limitMs) => {
    const { clock, report, recovery, dropped } = await restarted(silentMs);
    void recovery.run('s-1', dropped, new AbortController().signal).next();
    await clock.advance(limitMs - 1);
    expect(dropped.abort).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(dropped.abort).toHaveBeenCalledOnce();
    expect(report.trying).toHaveBeenLastCalledWith('new-offer', 2);
  });
});
