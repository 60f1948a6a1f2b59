import { describe, expect, it, vi } from 'vitest';
import { CandidateTrickler, MAX_TRIES, RETRY_PAUSE_MS } from '../../src/client/trickler.js';
import { FakeClock } from '../../src/testing/index.js';

// The trickle's PATCH retries on the session's clock (they used a real 200 ms sleep): a failure
// that may pass (5xx, network) is tried again RETRY_PAUSE_MS later, at most MAX_TRIES times; any
// other 4xx is not repeated; 404/405 means no trickle. No real time passes.

const OFFER = ['v=0', 'a=ice-ufrag:abcd', 'a=ice-pwd:secretsecretsecretsecret12', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=mid:0', ''].join('\r\n');
const candidate = (port: number) => `a=candidate:1 1 udp 2122260223 127.0.0.1 ${port} typ host ufrag abcd`;

/** A trickler whose resource fails with `failures` in order, then answers null; one candidate queued. */
function setup(...failures: unknown[]) {
  const clock = new FakeClock();
  const patch = vi.fn(async (_fragment: string): Promise<string | null> => {
    if (failures.length > 0) throw failures.shift();
    return null;
  });
  const trickler = new CandidateTrickler({ patch }, clock);
  trickler.describe(OFFER);
  trickler.start();
  trickler.add(candidate(50000), '0');
  return { clock, patch, trickler };
}

describe('CandidateTrickler retries (fake time)', () => {
  it('tries a PATCH that failed with a 503 again after RETRY_PAUSE_MS of clock time', async () => {
    const { clock, patch } = setup({ status: 503 });
    await clock.settle();
    expect(patch).toHaveBeenCalledTimes(1);
    await clock.advance(RETRY_PAUSE_MS - 1);
    expect(patch).toHaveBeenCalledTimes(1);
    await clock.advance(1);
    expect(patch).toHaveBeenCalledTimes(2);
    expect(patch.mock.calls[1]![0]).toBe(patch.mock.calls[0]![0]); // the same fragment
    expect(patch.mock.calls[1]![0]).toContain('50000');
    await clock.advance(10_000);
    expect(patch).toHaveBeenCalledTimes(2); // it went through
  });

  it(`gives a batch up after ${MAX_TRIES} tries; later candidates still go`, async () => {
    const { clock, patch, trickler } = setup(...Array.from({ length: MAX_TRIES }, () => new TypeError('network down')));
    await clock.advance(RETRY_PAUSE_MS * (MAX_TRIES + 2));
    expect(patch).toHaveBeenCalledTimes(MAX_TRIES);
    trickler.add(candidate(50001), '0');
    await clock.settle();
    expect(patch).toHaveBeenCalledTimes(MAX_TRIES + 1);
    expect(patch.mock.calls.at(-1)![0]).toContain('50001');
    expect(patch.mock.calls.at(-1)![0]).not.toContain('50000');
  });

  it('does not repeat a PATCH the service refused with a 4xx (422), and goes on with the next batch', async () => {
    const { clock, patch, trickler } = setup({ status: 422 });
    await clock.advance(RETRY_PAUSE_MS * 5);
    expect(patch).toHaveBeenCalledTimes(1);
    trickler.add(candidate(50001), '0');
    await clock.settle();
    expect(patch).toHaveBeenCalledTimes(2);
  });

  it('404 or 405: the service takes no trickle; refusal resolves and nothing more is sent', async () => {
    for (const status of [404, 405]) {
      const { clock, patch, trickler } = setup({ status });
      await trickler.refusal;
      trickler.add(candidate(50001), '0');
      trickler.end();
      await clock.advance(RETRY_PAUSE_MS * 5);
      expect(patch).toHaveBeenCalledTimes(1);
    }
  });
});
