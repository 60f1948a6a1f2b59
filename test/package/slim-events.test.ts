import { EventEmitter as NodeEmitter } from 'node:events';
import { beforeAll, describe, expect, it } from 'vitest';

// scripts/shims/events.cjs stands in for `events` inside the vendored simple-peer bundle. Each
// scenario runs against it and against Node's EventEmitter and must record the same thing.

type Listener = (...args: unknown[]) => unknown;
interface Emitter {
  on(type: string | symbol, listener: Listener): Emitter;
  addListener(type: string | symbol, listener: Listener): Emitter;
  once(type: string | symbol, listener: Listener): Emitter;
  removeListener(type: string | symbol, listener: Listener): Emitter;
  off(type: string | symbol, listener: Listener): Emitter;
  emit(type: string | symbol, ...args: unknown[]): boolean;
  listenerCount(type: string | symbol): number;
}
type EmitterClass = new () => Emitter;

let Slim: EmitterClass & { EventEmitter: EmitterClass };
const shim = new URL('../../scripts/shims/events.cjs', import.meta.url).href;
const implementations = () =>
  [
    ['node', NodeEmitter as unknown as EmitterClass],
    ['shim', Slim],
  ] as const;

/** Runs a scenario on both emitters and expects identical logs. */
function same(scenario: (E: EmitterClass, log: unknown[]) => void) {
  const logs = implementations().map(([, E]) => {
    const log: unknown[] = [];
    scenario(E, log);
    return log;
  });
  expect(logs[1]).toEqual(logs[0]);
  return logs[0];
}

describe('EventEmitter of the vendored simple-peer (scripts/shims/events.cjs)', () => {
  beforeAll(async () => {
    Slim = ((await import(shim)) as { default: typeof Slim }).default;
  });

  it('exports itself as .EventEmitter (readable-stream reads require("events").EventEmitter)', () => {
    expect(Slim.EventEmitter).toBe(Slim);
  });

  it('calls listeners in order with arguments and this, and reports whether any ran', () => {
    const log = same((E, log) => {
      const e = new E();
      log.push(e.emit('x', 1));
      e.on('x', function (this: unknown, a, b) { log.push(['first', a, b, this === e]); });
      e.addListener('x', (a) => log.push(['second', a]));
      log.push(e.emit('x', 1, 2));
    });
    expect(log).toEqual([false, ['first', 1, 2, true], ['second', 1], true]);
  });

  it('runs once listeners once, through this.on/this.removeListener, and removes them by the original', () => {
    same((E, log) => {
      class Spy extends E {
        override on(type: string | symbol, listener: Listener) { log.push(['on', String(type)]); return super.on(type, listener); }
        override removeListener(type: string | symbol, listener: Listener) { log.push(['remove', String(type)]); return super.removeListener(type, listener); }
      }
      const e = new Spy();
      const fn = (v: unknown) => log.push(['once', v]);
      e.once('a', fn);
      e.emit('a', 1);
      e.emit('a', 2);
      e.once('b', fn);
      log.push(e.listenerCount('b'));
      e.removeListener('b', fn);
      log.push(e.emit('b', 3), e.listenerCount('b'));
      e.on('c', () => log.push('c-on'));
      e.once('c', () => log.push('c-once'));
      e.emit('c');
      e.emit('c');
    });
  });

  it('removes the last matching listener only, and tolerates unknown ones', () => {
    same((E, log) => {
      const e = new E();
      const a = () => log.push('a');
      const b = () => log.push('b');
      e.on('x', a).on('x', b).on('x', a);
      e.removeListener('x', a);
      e.emit('x');
      e.off('x', b);
      e.removeListener('x', () => {});
      e.removeListener('nothing', a);
      e.emit('x');
      log.push(e.listenerCount('x'));
      e.off('x', a);
      log.push(e.listenerCount('x'), e.emit('x'));
    });
  });

  it('iterates a snapshot: listeners added or removed during emit take effect next time', () => {
    same((E, log) => {
      const e = new E();
      const late = () => log.push('late');
      const second = () => log.push('second');
      e.on('x', () => {
        log.push('first');
        e.on('x', late);
        e.removeListener('x', second);
      });
      e.on('x', second);
      e.emit('x');
      e.emit('x');
    });
  });

  it('throws on an unhandled error event, and not when handled', () => {
    same((E, log) => {
      const e = new E();
      const boom = new Error('boom');
      try { e.emit('error', boom); } catch (error) { log.push(error === boom); }
      // (Node quotes the value with util.inspect; the shim does not.)
      try { e.emit('error', 'text'); } catch (error) { log.push(/^Unhandled error\. \('?text'?\)$/.test((error as Error).message)); }
      e.on('error', (err) => log.push(['handled', (err as Error).message]));
      log.push(e.emit('error', boom));
    });
  });

  it('counts listeners per event', () => {
    same((E, log) => {
      const e = new E();
      const s = Symbol.for('kb');
      const fn = () => {};
      e.on('a', () => {}).on(s, () => {}).on('a', fn);
      log.push(e.listenerCount('a'), e.listenerCount(s), e.listenerCount('none'));
      e.off('a', fn);
      log.push(e.listenerCount('a'));
    });
  });

  it('has nothing the bundle does not call (each costs every visitor bytes)', () => {
    const e = new Slim() as unknown as Record<string, unknown>;
    for (const unused of ['prependListener', 'prependOnceListener', 'removeAllListeners', 'eventNames', 'setMaxListeners', 'rawListeners']) {
      expect(e[unused], unused).toBeUndefined();
    }
  });

  it('rejects a listener that is not a function', () => {
    same((E, log) => {
      const e = new E();
      for (const method of ['on', 'addListener'] as const) {
        try { (e[method] as (t: string, l: unknown) => void)('x', 'nope'); } catch (error) { log.push((error as Error).name); }
      }
    });
  });

  it('works as a function-style base class (readable-stream calls Stream.call(this))', () => {
    function Stream(this: Emitter) { (Slim as unknown as (this: Emitter) => void).call(this); }
    Object.setPrototypeOf(Stream.prototype, Slim.prototype);
    const s = new (Stream as unknown as EmitterClass)();
    const seen: unknown[] = [];
    s.on('data', (d) => seen.push(d));
    s.emit('data', 'chunk');
    expect(seen).toEqual(['chunk']);
    // Instances do not share listeners through the prototype.
    expect(new (Stream as unknown as EmitterClass)().listenerCount('data')).toBe(0);
  });
});

describe('randombytes of the vendored simple-peer (scripts/shims/randombytes.cjs)', () => {
  type RandomBytes = (size: number) => Uint8Array;
  let randomBytes: RandomBytes;
  beforeAll(async () => {
    randomBytes = ((await import(new URL('../../scripts/shims/randombytes.cjs', import.meta.url).href)) as { default: RandomBytes }).default;
  });

  it('returns bytes of the requested size with varied contents, in hex as simple-peer uses them', () => {
    const a = randomBytes(4) as Uint8Array & { toString(enc: string): string };
    expect(a.length).toBe(4);
    expect(a.toString('hex')).toMatch(/^[0-9a-f]{8}$/);
    expect(a.toString('hex')).toBe(Buffer.from(a).toString('hex'));
    const id = randomBytes(20) as Uint8Array & { toString(enc: string): string };
    expect(id.toString('hex')).toMatch(/^[0-9a-f]{40}$/);
    expect(new Set(Array.from({ length: 20 }, () => (randomBytes(8) as Uint8Array).join())).size).toBe(20);
  });

  it('refuses an encoding simple-peer does not use instead of answering wrongly', () => {
    const a = randomBytes(4) as Uint8Array & { toString(enc: string): string };
    expect(() => a.toString('base64')).toThrow(/hex only/);
  });
});
