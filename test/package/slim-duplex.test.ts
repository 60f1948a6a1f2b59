import { Duplex as NodeDuplex } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';

// scripts/shims/duplex.cjs stands in for readable-stream's Duplex inside the vendored simple-peer
// bundle. Each scenario uses the stream the way simple-peer does (subclass with _read/_write, push,
// write, end, the states it reads) against it and against Node's Duplex, and must record the same.

type Callback = (err?: Error | null) => void;
interface DuplexLike {
  push(chunk: unknown): boolean;
  write(chunk: unknown, cb?: Callback): boolean;
  end(cb?: () => void): unknown;
  on(type: string, listener: (...args: unknown[]) => void): unknown;
  _readableState: { ended: boolean };
  _writableState: { finished: boolean };
}
type DuplexClass = new (options?: Record<string, unknown>) => DuplexLike;

let Slim: DuplexClass;
const shim = new URL('../../scripts/shims/duplex.cjs', import.meta.url).href;
// Both streams defer with process.nextTick / queueMicrotask: an immediate runs once all of those ran.
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A subclass as simple-peer writes it: `_write` may hold its callback (backpressure). */
function peerLike(Base: DuplexClass, log: unknown[], hold: Callback[]) {
  return class extends Base {
    _read() {}
    _write(chunk: unknown, _encoding: string, cb: Callback) {
      log.push(['_write', String(chunk)]);
      if (String(chunk).startsWith('slow')) hold.push(cb);
      else cb(null);
    }
  };
}

async function same(scenario: (S: DuplexClass, log: unknown[], hold: Callback[]) => Promise<void>) {
  const logs: unknown[][] = [];
  for (const Base of [NodeDuplex as unknown as DuplexClass, Slim]) {
    const log: unknown[] = [];
    const hold: Callback[] = [];
    await scenario(peerLike(Base, log, hold) as unknown as DuplexClass, log, hold);
    logs.push(log);
  }
  expect(logs[1]).toEqual(logs[0]);
  return logs[0]!;
}

describe('Duplex of the vendored simple-peer (scripts/shims/duplex.cjs)', () => {
  beforeAll(async () => {
    Slim = ((await import(shim)) as { default: DuplexClass }).default;
  });

  it('starts flowing on the next tick after the first data listener, in order, and ends after push(null)', async () => {
    const log = await same(async (S, log) => {
      const s = new S({ allowHalfOpen: false });
      s.on('data', (d) => log.push(['data', String(d)]));
      s.on('end', () => log.push('end'));
      s.push('a');
      log.push('after a');
      s.push('b');
      s.push(null);
      log.push(['ended', s._readableState.ended]);
      await tick();
    });
    expect(log).toEqual(['after a', ['ended', true], ['data', 'a'], ['data', 'b'], 'end']);
  });

  it('hands out text as text (unlike Node\'s byte stream: the session reads strings) and bytes as bytes', async () => {
    const s = new (peerLike(Slim, [], []))();
    const seen: unknown[] = [];
    s.on('data', (d) => seen.push(d));
    await tick();
    const bytes = new Uint8Array([1, 2]);
    s.push('こんにちは');
    s.push(bytes);
    expect(seen).toEqual(['こんにちは', bytes]);
  });

  it('buffers data pushed before the first data listener and delivers it when one is added', async () => {
    await same(async (S, log) => {
      const s = new S();
      s.push('early-1');
      s.push('early-2');
      s.on('data', (d) => log.push(['data', String(d)]));
      log.push('listening');
      await tick();
      s.push('late');
      log.push('pushed late'); // delivered at once while flowing
      await tick();
    });
  });

  it('end() marks the writable finished and emits finish on a later tick, once', async () => {
    const log = await same(async (S, log) => {
      const s = new S();
      s.on('finish', () => log.push(['finish', s._writableState.finished]));
      s.end();
      log.push('after end');
      await tick();
      s.end();
      await tick();
    });
    expect(log.filter((l) => Array.isArray(l) && l[0] === 'finish')).toHaveLength(1);
  });

  it('has no write(): nothing in kb-voice writes to the peer as a stream (it uses send())', () => {
    expect((Slim.prototype as unknown as Record<string, unknown>).write).toBeUndefined();
  });
});
