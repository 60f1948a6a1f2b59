'use strict';
// The `events` module inside the vendored simple-peer bundle (scripts/build.mjs aliases it here):
// the part of Node's EventEmitter that simple-peer 9, the Duplex shim (scripts/shims/duplex.cjs) and
// kb-voice's transport (src/client/peer.ts) call: on/addListener, once, off/removeListener, emit,
// listenerCount. A function constructor, because the Duplex shim calls `EventEmitter.call(this)`.
// Node semantics kept for those: listeners run in order on a snapshot with the emitter as `this`,
// `once` goes through `this.on` / `this.removeListener` (the Duplex overrides `on` to start flowing)
// and its wrapper is removed by the original listener, removeListener removes the last match, and
// emitting 'error' with no listener throws. Nothing else (no prepend, newListener/removeListener
// events, removeAllListeners or max-listener settings): nothing in the bundle calls them, and every
// byte here is in every visitor's download. test/package/slim-events.test.ts compares it with Node's.

function EventEmitter() {
  this._events = Object.create(null);
}

const proto = EventEmitter.prototype;

proto.on = proto.addListener = function (type, listener) {
  if (typeof listener !== 'function') throw new TypeError(`The "listener" argument must be of type Function. Received type ${typeof listener}`);
  (this._events[type] ||= []).push(listener);
  return this;
};

proto.once = function (type, listener) {
  const wrapped = (...args) => {
    this.removeListener(type, wrapped);
    listener.apply(this, args);
  };
  wrapped.listener = listener;
  return this.on(type, wrapped);
};

proto.off = proto.removeListener = function (type, listener) {
  const list = this._events[type] || [];
  for (let i = list.length - 1; i >= 0; i -= 1) {
    if (list[i] === listener || list[i].listener === listener) {
      list.splice(i, 1);
      break;
    }
  }
  return this;
};

proto.emit = function (type, ...args) {
  const list = this._events[type];
  if (!list?.length) {
    if (type === 'error') throw args[0] instanceof Error ? args[0] : new Error(`Unhandled error. (${args[0]})`);
    return false;
  }
  for (const listener of list.slice()) listener.apply(this, args);
  return true;
};

proto.listenerCount = function (type) {
  return (this._events[type] || []).length;
};

EventEmitter.EventEmitter = EventEmitter;
module.exports = EventEmitter;
