'use strict';
// The `Duplex` base class of simple-peer 9 inside the vendored bundle (readable-stream.cjs exports
// it): what simple-peer and kb-voice use of readable-stream's Duplex, ~8.5 KB min+gzip smaller.
// Kept: push() delivers 'data' at once while flowing and buffers before that (the first 'data'
// listener starts the flow on the next tick, as Node's paused streams do). Unlike readable-stream,
// a text message stays a string: the session reads text, and turning it into bytes only for the
// session to decode it again cost a Buffer implementation and two conversions per message;
// push(null) marks `_readableState.ended` and emits 'end'; write() goes through `_write` one chunk at a time
// (simple-peer holds the callback for backpressure; the caller's callback runs on a later tick);
// end() marks `_writableState.finished` and emits 'finish' once pending writes are done.
// Not kept: pipe(), read(), pause()/resume(), object/encoding modes, highWaterMark (write()
// returns false while a write is pending). test/package/slim-duplex.test.ts compares it with
// Node's Duplex for these uses; vendored-simple-peer.test.ts runs real calls through it.
const EventEmitter = require('events');

function Duplex() {
  EventEmitter.call(this);
  this.readable = true;
  this.writable = true;
  this._readableState = { ended: false, flowing: false, buffer: [] };
  this._writableState = { ending: false, finished: false, writing: false, pending: [] };
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

Duplex.prototype.write = function write(chunk, encoding, cb) {
  if (typeof encoding === 'function') cb = encoding;
  const state = this._writableState;
  if (state.ending) {
    const err = new Error('write after end');
    queueMicrotask(() => {
      if (cb) cb(err);
      this.emit('error', err);
    });
    return false;
  }
  state.pending.push([chunk, cb]);
  if (!state.writing) writeNext(this);
  return !state.writing;
};

function writeNext(stream) {
  const state = stream._writableState;
  const next = state.pending.shift();
  if (!next) {
    if (state.ending) finish(stream);
    return;
  }
  state.writing = true;
  stream._write(next[0], 'buffer', (err) => {
    state.writing = false;
    // Like Node: the caller's callback runs later, the next buffered chunk is written at once.
    queueMicrotask(() => {
      if (next[1]) next[1](err || null);
      if (err) stream.emit('error', err);
    });
    if (!err) writeNext(stream);
  });
}

function finish(stream) {
  const state = stream._writableState;
  if (state.finished) return;
  state.finished = true;
  queueMicrotask(() => stream.emit('finish'));
}

Duplex.prototype.end = function end(chunk, encoding, cb) {
  if (typeof chunk === 'function') cb = chunk, chunk = undefined;
  else if (typeof encoding === 'function') cb = encoding;
  if (chunk !== undefined && chunk !== null) this.write(chunk);
  const state = this._writableState;
  state.ending = true;
  if (cb) this.once('finish', cb);
  if (!state.writing && state.pending.length === 0) finish(this);
  return this;
};

Duplex.prototype.destroy = function destroy(err) {
  if (this._destroy) this._destroy(err, () => undefined);
  return this;
};

module.exports = Duplex;
