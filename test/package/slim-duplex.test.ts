import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';

// scripts/shims/readable-stream.cjs stands in for readable-stream's Duplex inside the vendored
// simple-peer bundle. Each scenario (what simple-peer does with its base class) runs against it and
// against readable-stream's Duplex and must record the same thing.

type Callback = (err?: Error | null) => void;
interface DuplexLike {
  push(chunk: unknown): boolean;
  write(chunk: unknown, cb?: Callback): boolean;
  end(cb?: () => void): unknown;
  on(type: string, listener: (...args: unknown[]) => void): unknown;
  once(type: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(type: string, listener: (...args: unknown[]) => void): unknown;
  _readableState: { ended: boolean };
  _writableState: { finished: boolean };
  _write(chunk: unknown, encoding: string, cb: Callback): void;
  _read(): void;
}
type DuplexClass = new (options?: object) => DuplexLike;

const require = createRequire(import.meta.url);
const real = require('readable-stream').Duplex as DuplexClass;
let slim: DuplexClass;
const tick = () => new Promise((r) => setTimeout(r, 5));

/** A subclass as simple-peer makes one: `_read` does nothing, `_write` records and calls back (later when `async`). */
function peerClass(Base: DuplexClass, log: unknown[], async = false): DuplexClass {
  return class extends Base {
    constructor() {
      super({ allowHalfOpen: false });
    }
    override _read() {}
    override _write(chunk: unknown, _encoding: string, cb: Callback) {
      log.push(['_write', String(chunk)]);
      if (async) setTimeout(() => cb(null), 1);
      else cb(null);
    }
  };
}

async function same(scenario: (D: DuplexClass, log: unknown[]) => Promise<void> | void) {
  const logs: unknown[][] = [];
  for (const D of [real, slim]) {
    const log: unknown[] = [];
    await scenario(D, log);
    logs.push(log);
  }
  expect(logs[1]).toEqual(logs[0]);
  return logs[0]!;
}

describe('Duplex of the vendored simple-peer (scripts/shims/readable-stream.cjs)', () => {
  beforeAll(async () => {
    slim = ((await import(new URL('../../scripts/shims/readable-stream.cjs', import.meta.url).href)) as { default: { Duplex: DuplexClass } }).default.Duplex;
  });

  it('push() delivers data events in order to a listener attached first (incoming channel messages)', async () => {
    const log = await same(async (D, log) => {
      const s = new (peerClass(D, log))();
      s.on('data', (c) => log.push(['data', String(c)]));
      s.push('a');
      s.push('b');
      await tick();
    });
    expect(log).toEqual([['data', 'a'], ['data', 'b']]);
  });

  it('holds data pushed before any data listener and delivers it once one is attached', async () => {
    await same(async (D, log) => {
      const s = new (peerClass(D, log))();
      s.push('early');
      await tick();
      log.push('attach');
      s.on('data', (c) => log.push(['data', String(c)]));
      await tick();
    });
  });

  it('push(null) ends the readable side: _readableState.ended, then end', async () => {
    const log = await same(async (D, log) => {
      const s = new (peerClass(D, log))();
      s.on('data', (c) => log.push(['data', String(c)]));
      s.on('end', () => log.push('end'));
      s.push('x');
      s.push(null);
      log.push(['ended', s._readableState.ended]);
      await tick();
    });
    expect(log).toContain('end');
  });

  it('write() hands chunks to _write one at a time, in order; end() then finishes on a later tick', async () => {
    const log = await same(async (D, log) => {
      const s = new (peerClass(D, log, true))();
      s.on('finish', () => log.push('finish'));
      s.write('1', () => log.push('cb1'));
      s.write('2', () => log.push('cb2'));
      s.end();
      log.push(['finished now', s._writableState.finished]);
      await tick();
      await tick();
      log.push(['finished later', s._writableState.finished]);
    });
    expect(log.at(-1)).toEqual(['finished later', true]);
  });

  it('a finish listener removed right after end() (simple-peer destroy) never runs', async () => {
    await same(async (D, log) => {
      const s = new (peerClass(D, log))();
      const onFinish = () => log.push('finish');
      s.once('finish', onFinish);
      s.push(null);
      s.end();
      s.removeListener('finish', onFinish);
      await tick();
      log.push('done');
    });
  });
});
