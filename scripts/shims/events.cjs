'use strict';
// The `events` module inside the vendored simple-peer bundle (scripts/build.mjs aliases it here):
// Node's EventEmitter as readable-stream and simple-peer use it, ~1.3 KB min+gzip smaller than the
// `events` npm package. A function constructor, because readable-stream calls `Stream.call(this)`.
// Node semantics kept: listeners run in order on a snapshot, `once` goes through `this.on` /
// `this.removeListener` (Readable overrides them to switch flowing mode), removeListener finds
// once-wrapped listeners and removes the last match, 'newListener'/'removeListener' events, and
// emitting 'error' with no listener throws. Not kept: max-listener leak warnings (set/get work).
// test/package/slim-events.test.ts compares it with Node's EventEmitter.

function EventEmitter() {
  EventEmitter.init.call(this);
}

EventEmitter.init = function init() {
  if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
    this._events = Object.create(null);
  }
  this._maxListeners = this._maxListeners || undefined;
};

function eventsOf(emitter) {
  if (emitter._events === undefined) emitter._events = Object.create(null);
  return emitter._events;
}

function checkListener(listener) {
  if (typeof listener !== 'function') {
    throw new TypeError(`The "listener" argument must be of type Function. Received type ${typeof listener}`);
  }
}

function addListener(emitter, type, listener, prepend) {
  checkListener(listener);
  const events = eventsOf(emitter);
  if (events.newListener !== undefined) {
    emitter.emit('newListener', type, listener.listener ? listener.listener : listener);
  }
  const list = events[type] || (events[type] = []);
  if (prepend) list.unshift(listener);
  else list.push(listener);
  return emitter;
}

function onceWrapper(target, type, listener) {
  const wrapped = function (...args) {
    if (wrapped.fired) return undefined;
    wrapped.fired = true;
    target.removeListener(type, wrapped);
    return listener.apply(target, args);
  };
  wrapped.fired = false;
  wrapped.listener = listener;
  return wrapped;
}

const proto = EventEmitter.prototype;
proto._events = undefined;
proto._maxListeners = undefined;

proto.addListener = function (type, listener) {
  return addListener(this, type, listener, false);
};
proto.on = proto.addListener;
proto.prependListener = function (type, listener) {
  return addListener(this, type, listener, true);
};
proto.once = function (type, listener) {
  checkListener(listener);
  this.on(type, onceWrapper(this, type, listener));
  return this;
};
proto.prependOnceListener = function (type, listener) {
  checkListener(listener);
  this.prependListener(type, onceWrapper(this, type, listener));
  return this;
};

proto.removeListener = function (type, listener) {
  checkListener(listener);
  const events = eventsOf(this);
  const list = events[type];
  if (list === undefined) return this;
  for (let i = list.length - 1; i >= 0; i -= 1) {
    if (list[i] === listener || list[i].listener === listener) {
      const removed = list.splice(i, 1)[0];
      if (list.length === 0) delete events[type];
      if (events.removeListener !== undefined) this.emit('removeListener', type, removed.listener || listener);
      break;
    }
  }
  return this;
};
proto.off = proto.removeListener;

proto.removeAllListeners = function (type) {
  const events = eventsOf(this);
  if (type === undefined) {
    for (const name of Reflect.ownKeys(events)) {
      if (name !== 'removeListener') this.removeAllListeners(name);
    }
    this.removeAllListeners('removeListener');
    this._events = Object.create(null);
    return this;
  }
  const list = events[type];
  if (list !== undefined) {
    if (events.removeListener !== undefined && type !== 'removeListener') {
      for (let i = list.length - 1; i >= 0; i -= 1) this.removeListener(type, list[i]);
    }
    delete events[type];
  }
  return this;
};

proto.emit = function (type, ...args) {
  const list = eventsOf(this)[type];
  if (list === undefined) {
    if (type === 'error') {
      const error = args[0];
      if (error instanceof Error) throw error;
      const wrapped = new Error(`Unhandled error. (${error})`);
      wrapped.context = error;
      throw wrapped;
    }
    return false;
  }
  for (const listener of list.slice()) listener.apply(this, args);
  return true;
};

proto.listeners = function (type) {
  const list = eventsOf(this)[type];
  return list === undefined ? [] : list.map((listener) => listener.listener || listener);
};
proto.rawListeners = function (type) {
  const list = eventsOf(this)[type];
  return list === undefined ? [] : list.slice();
};
proto.listenerCount = function (type) {
  const list = eventsOf(this)[type];
  return list === undefined ? 0 : list.length;
};
proto.eventNames = function () {
  return Reflect.ownKeys(eventsOf(this));
};
proto.setMaxListeners = function (n) {
  if (typeof n !== 'number' || n < 0 || Number.isNaN(n)) {
    throw new RangeError(`The value of "n" is out of range. It must be a non-negative number. Received ${n}`);
  }
  this._maxListeners = n;
  return this;
};
proto.getMaxListeners = function () {
  return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners;
};

EventEmitter.defaultMaxListeners = 10;
EventEmitter.listenerCount = (emitter, type) => emitter.listenerCount(type);
EventEmitter.EventEmitter = EventEmitter;
module.exports = EventEmitter;
