// Node callers for the benchmarks that run VoiceSession outside a browser: a microphone made of
// an RTCAudioSource (@roamhq/wrtc) fed in real time with 10 ms frames (silence, or a speech WAV),
// and small helpers to wait for session events with deadlines.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root, withTimeout } from './common.mjs';

const RATE = 48_000;
const FRAME = 480; // 10 ms at 48 kHz, what RTCAudioSource expects

export const FIXTURE_AUDIO = path.join(root, 'test', 'fixtures', 'audio');

/** Decodes a PCM16 WAV (any rate, mono or first channel of many) to 48 kHz mono samples. */
export function readWav48k(file) {
  const buf = readFileSync(file);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${file}: not a WAV file`);
  let offset = 12;
  let fmt = null;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = { format: buf.readUInt16LE(body), channels: buf.readUInt16LE(body + 2), rate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!fmt || fmt.format !== 1 || fmt.bits !== 16) throw new Error(`${file}: only PCM16 WAV is supported`);
      const frames = Math.floor(size / 2 / fmt.channels);
      const mono = new Int16Array(frames);
      for (let i = 0; i < frames; i++) mono[i] = buf.readInt16LE(body + i * 2 * fmt.channels);
      return resampleLinear(mono, fmt.rate, RATE);
    }
    offset = body + size + (size % 2);
  }
  throw new Error(`${file}: no data chunk`);
}

function resampleLinear(samples, from, to) {
  if (from === to) return samples;
  const out = new Int16Array(Math.floor((samples.length * to) / from));
  const step = from / to;
  for (let i = 0; i < out.length; i++) {
    const x = i * step;
    const j = Math.floor(x);
    const a = samples[j] ?? 0;
    const b = samples[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (x - j));
  }
  return out;
}

// One timer drives every open microphone: many sessions in one process must not each run a 5 ms
// interval of their own.
const openMics = new Set();
let ticker;
function register(mic) {
  openMics.add(mic);
  ticker ??= setInterval(() => {
    for (const m of openMics) m.pump();
  }, 5);
}
function unregister(mic) {
  openMics.delete(mic);
  if (openMics.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

/**
 * A Node microphone: silence unless `play()` is speaking. Paced from the wall clock; after a stall
 * it skips ahead instead of bursting, like a real device.
 */
export class WavMicrophone {
  constructor(wrtc) {
    this.wrtc = wrtc;
    this.source = new wrtc.nonstandard.RTCAudioSource();
    this.streams = [];
    this.queue = [];
    this.done = undefined;
    this.startedAt = performance.now();
    this.sent = 0;
    register(this);
  }

  /** The `microphone` option of VoiceSession. */
  open = async () => {
    const stream = new this.wrtc.MediaStream([this.source.createTrack()]);
    this.streams.push(stream);
    return stream;
  };

  /** Speaks 48 kHz mono samples; resolves once the last frame went out. */
  play(samples) {
    for (let i = 0; i < samples.length; i += FRAME) {
      const frame = new Int16Array(FRAME);
      frame.set(samples.subarray(i, Math.min(i + FRAME, samples.length)));
      this.queue.push(frame);
    }
    return new Promise((resolve) => (this.done = resolve));
  }

  close() {
    unregister(this);
    for (const s of this.streams) for (const t of s.getTracks()) t.stop();
  }

  pump() {
    const due = Math.floor((performance.now() - this.startedAt) / 10);
    if (due - this.sent > 20) this.sent = due - 20;
    while (this.sent < due) {
      this.sent++;
      const frame = this.queue.shift() ?? new Int16Array(FRAME);
      this.source.onData({ samples: frame, sampleRate: RATE, bitsPerSample: 16, channelCount: 1, numberOfFrames: FRAME });
      if (this.queue.length === 0 && this.done) {
        const done = this.done;
        this.done = undefined;
        done();
      }
    }
  }
}

/** Resolves with the first `event` emitted by `emitter` whose args satisfy `test`. */
export function nextEvent(emitter, event, test = () => true, ms = 20000) {
  let handler;
  const p = new Promise((resolve) => {
    handler = (...args) => {
      if (test(...args)) resolve(args.length > 1 ? args : args[0]);
    };
    emitter.on(event, handler);
  });
  return withTimeout(p, ms, `event ${event}`).finally(() => emitter.off(event, handler));
}

/** Waits until the session's warmup is settled (ok or failed). */
export async function warmupSettled(session, ms = 20000) {
  if (session.warmup === 'ok' || session.warmup === 'failed') return session.warmup;
  return nextEvent(session, 'warmup', (s) => s === 'ok' || s === 'failed', ms);
}

/**
 * One text turn: sends `text`, resolves the finished Turn plus the client-side time from sending
 * to the assistant's audio starting. With `interrupt`, the answer is cut as soon as it starts
 * (its first_response_ms is already taken) so a benchmark does not wait for the whole speech.
 */
export async function textTurn(session, text, { interrupt = false, ms = 30000 } = {}) {
  const speaking = nextEvent(session, 'assistantSpeaking', (on) => on === true, ms).catch(() => null);
  const turn = nextEvent(session, 'turn', () => true, ms);
  const t0 = performance.now();
  session.sendText(text);
  let clientFirstAudioMs = null;
  const spoke = await Promise.race([speaking.then((v) => (v === null ? null : performance.now())), turn.then(() => null)]);
  if (spoke !== null) {
    clientFirstAudioMs = spoke - t0;
    if (interrupt) session.interrupt();
  }
  const finished = await turn;
  return { turn: finished, clientFirstAudioMs, totalMs: performance.now() - t0 };
}
