import { EventEmitter as EventEmitter3 } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import { EventEmitter } from '../../src/client/emitter.js';

// The session's own emitter behaves as eventemitter3 did for what apps call (it replaced it to keep
// the browser bundle within its budget, #46): the same script of calls gives the same calls heard.

type Events = { a: (n: number) => void; b: () => void };

function script(emitter: EventEmitter<Events> | EventEmitter3<Events>): unknown[] {
  const heard: unknown[] = [];
  const ctx = { name: 'ctx' };
  const one = (n: number) => heard.push(['one', n]);
  const two = function (this: unknown, n: number) { heard.push(['two', n, this === ctx]); };
  const self = function (this: unknown) { heard.push(['self', this === emitter]); };
  const once = (n: number) => heard.push(['once', n]);
  emitter.on('a', one);
  emitter.on('a', two, ctx);
  emitter.once('a', once);
  emitter.on('b', self);
  heard.push(emitter.listenerCount('a'), emitter.eventNames());
  heard.push(emitter.emit('a', 1), emitter.emit('a', 2), emitter.emit('b'));
  emitter.off('a', two, { other: true });
  emitter.emit('a', 3);
  emitter.off('a', two);
  emitter.emit('a', 4);
  // A listener that removes another during an emit: the emit goes on over the list it began with.
  emitter.on('a', () => emitter.off('a', one));
  emitter.emit('a', 5);
  emitter.emit('a', 6);
  heard.push(emitter.listeners('a').length, emitter.emit('c' as never));
  emitter.removeAllListeners('a');
  heard.push(emitter.emit('a', 7), emitter.listenerCount('b'));
  emitter.removeAllListeners();
  heard.push(emitter.eventNames(), emitter.emit('b'));
  return heard;
}

describe('EventEmitter', () => {
  it('hears what eventemitter3 hears for the same calls', () => {
    expect(script(new EventEmitter<Events>())).toEqual(script(new EventEmitter3<Events>()));
  });
});
