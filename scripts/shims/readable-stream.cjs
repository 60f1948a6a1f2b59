'use strict';
// Stand-in for `require('readable-stream')` inside the vendored simple-peer bundle
// (scripts/build.mjs resolves it here): only `stream.Duplex`, simple-peer's base class, and only
// what simple-peer and kb-voice use of it, instead of readable-stream's Readable/Writable machinery
// (~29 KB min, ~7 KB min+gzip, which the browser entry's 45 KB budget cannot carry).
// Kept: push(chunk) emits 'data' (held until a 'data' listener switched to flowing mode);
// text pushed becomes bytes; push(null) marks `_readableState.ended` and emits 'end'; write()
// hands each chunk to `_write` in order, one at a time (the next waits for the callback, as a
// Writable does); end() marks `_writableState.finished` and emits 'finish' once nothing is left to
// write; `readable`/`writable` flags.
// Not kept: highWaterMark/backpressure return values (write() returns true; simple-peer does its
// own backpressure on the data channel), pipe(), read(), async iteration, encodings.
// test/package/slim-duplex.test.ts compares it with readable-stream's Duplex.
const EventEmitter = require('events');
const { Buffer } = require('buffer');

class Duplex extends EventEmitter {
  constructor() {
    super();
    this.readable = true;
    this.writable = true;
    this._readableState = { ended: false, flowing: false, held: [] };
    this._writableState = { ended: false, finished: false, queue: [], busy: false };
  }

  on(type, listener) {
    super.on(type, listener);
    // Attaching a 'data' listener switches to flowing mode on a later tick, as resume() does.
    if (type === 'data' && !this._readableState.flowing) queueMicrotask(() => this._flow());
    return this;
  }

  _flow() {
    const state = this._readableState;
    state.flowing = true;
    while (state.held.length > 0) this.emit('data', state.held.shift());
    if (state.ended && !state.endEmitted) {
      state.endEmitted = true;
      queueMicrotask(() => this.emit('end'));
    }
  }

  push(chunk) {
    const state = this._readableState;
    if (state.ended) return false;
    if (chunk === null) {
      state.ended = true;
      if (state.flowing) this._flow();
      return false;
    }
    // Not in object mode: text becomes bytes, as readable-stream delivers it.
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (state.flowing && state.held.length === 0) this.emit('data', data);
    else state.held.push(data);
    return true;
  }

  write(chunk, encoding, cb) {
    if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    const state = this._writableState;
    if (state.ended) {
      const err = new Error('write after end');
      queueMicrotask(() => (cb ? cb(err) : this.emit('error', err)));
      return false;
    }
    state.queue.push([chunk, encoding, cb]);
    if (!state.busy) this._writeNext();
    return true;
  }

  _writeNext() {
    const state = this._writableState;
    const next = state.queue.shift();
    if (!next) return;
    const [chunk, encoding, cb] = next;
    state.busy = true;
    this._write(chunk, encoding || 'buffer', (err) => {
      state.busy = false;
      // As a Writable does: the next queued chunk is handed over before this one's callback runs.
      if (!err) this._writeNext();
      if (cb) cb(err);
      if (err) this.emit('error', err);
      else this._maybeFinish();
    });
  }

  end(chunk, encoding, cb) {
    if (typeof chunk === 'function') [cb, chunk] = [chunk, undefined];
    else if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
    const state = this._writableState;
    if (cb) this.once('finish', cb);
    if (state.ended) return this;
    state.ended = true;
    this._maybeFinish();
    return this;
  }

  /** 'finish' once ended and nothing is left to write: at once from end(), or after the last write's callback. */
  _maybeFinish() {
    const state = this._writableState;
    if (!state.ended || state.finished || state.busy || state.queue.length > 0) return;
    state.finished = true;
    this.emit('finish');
  }
}

exports.Duplex = Duplex;
