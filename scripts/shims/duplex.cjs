'use strict';
// The `Duplex` base class of simple-peer 9 inside the vendored bundle (readable-stream.cjs exports
// it): what simple-peer and kb-voice use of readable-stream's Duplex, ~8.5 KB min+gzip smaller.
// Kept: push() delivers 'data' at once while flowing and buffers before that (the first 'data'
// listener starts the flow on the next tick, as Node's paused streams do). Unlike readable-stream,
// a text message stays a string: the session reads text, and turning it into bytes only for the
// session to decode it again cost a Buffer implementation and two conversions per message;
// push(null) marks `_readableState.ended` and emits 'end'; end() marks `_writableState.finished`
// and emits 'finish' on a later tick (simple-peer's destroy() calls both).
// Not kept: write() (kb-voice sends with simple-peer's send(), never through the stream, so
// simple-peer's _write never runs), pipe(), read(), pause()/resume(), object/encoding modes.
// test/package/slim-duplex.test.ts compares it with Node's Duplex for these uses;
// vendored-simple-peer.test.ts runs real calls through it.
const EventEmitter = require('events');

function Duplex() {
  EventEmitter.call(this);
  this.readable = true;
  this.writable = true;
  this._readableState = { ended: false, flowing: false, buffer: [] };
  this._writableState = { finished: false };
}
Object.setPrototypeOf(Duplex.prototype, EventEmitter.prototype);
Object.setPrototypeOf(Duplex, EventEmitter);

Duplex.prototype.push = function push(chunk) {
  const state = this._readableState;
  if (state.ended) return false;
  if (chunk === null) {
    state.ended = true;
    if (state.buffer.length === 0) queueMicrotask(() => this.emit('end'));
    return false;
  }
  if (state.flowing && state.buffer.length === 0 && this.listenerCount('data') > 0) this.emit('data', chunk);
  else state.buffer.push(chunk);
  return true;
};

Duplex.prototype.on = function on(type, listener) {
  EventEmitter.prototype.on.call(this, type, listener);
  // As a paused Node stream: the first 'data' listener starts the flow on the next tick.
  if (type === 'data' && !this._readableState.flowing) queueMicrotask(() => flow(this));
  return this;
};
Duplex.prototype.addListener = Duplex.prototype.on;

function flow(stream) {
  const state = stream._readableState;
  state.flowing = true;
  while (state.buffer.length > 0 && stream.listenerCount('data') > 0) stream.emit('data', state.buffer.shift());
  if (state.ended && state.buffer.length === 0) stream.emit('end');
}

// No write(): kb-voice sends with simple-peer's send(), never through the stream. end() only
// finishes the writable side, as simple-peer's destroy() calls it: 'finish' on a later tick.
Duplex.prototype.end = function end() {
  const state = this._writableState;
  if (!state.finished) {
    state.finished = true;
    queueMicrotask(() => this.emit('finish'));
  }
  return this;
};

Duplex.prototype.destroy = function destroy(err) {
  if (this._destroy) this._destroy(err, () => undefined);
  return this;
};

module.exports = Duplex;
