import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';

// The one-function packages simple-peer 9 requires, replaced inside the vendored browser bundle
// (scripts/build.mjs aliases them to scripts/shims/): each must behave as the package does for the
// way simple-peer calls it. The packages themselves are loaded from node_modules to compare.
const require = createRequire(import.meta.url);
const shim = (name: string) => require(`../../scripts/shims/${name}.cjs`) as unknown;
const real = (name: string) => require(name) as unknown;

type ErrCode = (err: Error, code: string) => Error & { code: string };
type GetRtc = () => { RTCPeerConnection: unknown; RTCSessionDescription: unknown; RTCIceCandidate: unknown } | null;

describe('err-code (scripts/shims/err-code.cjs)', () => {
  const implementations = [['package', real('err-code') as ErrCode], ['shim', shim('err-code') as ErrCode]] as const;

  it.each(implementations)('%s: gives an error an enumerable code and returns it', (_, errCode) => {
    const error = new Error('Connection failed.');
    const out = errCode(error, 'ERR_CONNECTION_FAILURE');
    expect(out).toBe(error);
    expect(out.code).toBe('ERR_CONNECTION_FAILURE');
    expect(Object.keys(out)).toContain('code');
  });

  it.each(implementations)('%s: sets code on a DOMException (a getter-only code on its prototype)', (_, errCode) => {
    const out = errCode(new DOMException('refused', 'OperationError'), 'ERR_SET_REMOTE_DESCRIPTION');
    expect(out.code).toBe('ERR_SET_REMOTE_DESCRIPTION');
    expect(out.message).toBe('refused');
  });

  it.each(implementations)('%s: copies a frozen error with the same prototype, message and stack', (_, errCode) => {
    const error = Object.freeze(new TypeError('frozen'));
    const out = errCode(error, 'ERR_X');
    expect(out).not.toBe(error);
    expect(out).toBeInstanceOf(TypeError);
    expect([out.code, out.message, out.stack]).toEqual(['ERR_X', 'frozen', error.stack]);
  });
});

describe('get-browser-rtc (scripts/shims/get-browser-rtc.cjs)', () => {
  const saved = { ...globalThis } as Record<string, unknown>;
  const names = ['RTCPeerConnection', 'RTCSessionDescription', 'RTCIceCandidate'] as const;
  afterEach(() => {
    for (const name of names) {
      if (name in saved) (globalThis as Record<string, unknown>)[name] = saved[name];
      else delete (globalThis as Record<string, unknown>)[name];
    }
  });

  it('returns null where the page has no RTCPeerConnection, as the package does', () => {
    for (const name of names) delete (globalThis as Record<string, unknown>)[name];
    expect((shim('get-browser-rtc') as GetRtc)()).toBeNull();
    expect((real('get-browser-rtc') as GetRtc)()).toBeNull();
  });

  it('returns the three classes, as the package does', () => {
    class Pc {}
    class Sd {}
    class Ic {}
    Object.assign(globalThis, { RTCPeerConnection: Pc, RTCSessionDescription: Sd, RTCIceCandidate: Ic });
    expect((shim('get-browser-rtc') as GetRtc)()).toEqual((real('get-browser-rtc') as GetRtc)());
    expect((shim('get-browser-rtc') as GetRtc)()!.RTCPeerConnection).toBe(Pc);
  });
});

describe('queue-microtask (scripts/shims/queue-microtask.cjs)', () => {
  it('runs callbacks in order, after the current task and before timers, as the package does', async () => {
    for (const queue of [shim('queue-microtask'), real('queue-microtask')] as ((fn: () => void) => void)[]) {
      const log: string[] = [];
      const timer = new Promise<void>((resolve) => setTimeout(() => (log.push('timer'), resolve()), 0));
      queue(() => log.push('a'));
      queue(() => log.push('b'));
      log.push('sync');
      await timer;
      expect(log).toEqual(['sync', 'a', 'b', 'timer']);
    }
  });
});
