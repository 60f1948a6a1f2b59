import { PRE_CONNECT_CAPABILITY, type ServerEventOf } from '../schemas/realtime-events.js';
import type { Attempt } from './attempt.js';
import type { Clock } from '../clock.js';
import type { SessionEffect } from './effects.js';
import type { PcmCapture, PreConnectBufferOption, PreConnectReport } from './pre-connect-options.js';

export type { PcmCapture, PreConnectBufferOption, PreConnectReport };

/** Default and largest `maxMs` (the v1 protocol takes at most 30 s: `MAX_PRECONNECT_MS`). */
export const PRE_CONNECT_DEFAULT_MS = 10000;
export const PRE_CONNECT_LIMIT_MS = 30000;
/**
 * Bytes of PCM per `input.preconnect` chunk (192 ms at 8 kHz). Its message (4096 base64 characters
 * and the JSON) fits SCTP's initial congestion window (4380 bytes, RFC 4960 7.2.1), so the first
 * chunk needs no extra round trip on a fresh channel: on the lab's 3g-poor profile 8192-byte chunks
 * reached the emulator 2.9-3.7 s after its session.ready, past its 3 s wait for them; these
 * 2.1-2.5 s (on an idle machine). 30 s at 48 kHz fits the 1000 chunks.
 */
export const CHUNK_BYTES = 3072;
/**
 * How fast the chunks go out (bytes of PCM per second: 192 kbit/s, 256 with base64): 1.5 times real
 * time at 8 kHz, under the slowest uplinks of the network lab (384-400 kbit/s) with the live audio
 * beside it. Sent at once, 10 s of audio fill a slow link's queue: its live audio and pings are lost
 * and the call drops (measured on the lab's satellite profile).
 */
const PACE_BYTES_PER_S = 24000;
/**
 * Chunks the channel may hold before the next waits (backpressure): a ping waits behind ~13 kB at
 * most (the old 8192-byte chunks let ~19 kB queue). With one, 3g-poor carried ~4.5 s of buffer in
 * 12-13 s (7-9 s with the old chunks): likely too little in flight for SCTP to recover a loss by
 * fast retransmit rather than a timeout.
 */
const QUEUED_CHUNKS = 3;
/** How often a chunk held back by the channel's queue looks again (ms). */
const BACKPRESSURE_POLL_MS = 100;

export interface PreConnectDeps {
  /** Paces the chunks. */
  clock: Clock;
  /** Whether the caller may be heard now: not muted and, in push-to-talk, holding talk. */
  open(): boolean;
  /** Keeps the sent track silent while the buffer records (the buffer then carries that audio, the live track what follows). */
  hold(on: boolean): void;
  /** Push-to-talk: an utterance released before connected is committed after its audio. */
  pushToTalk: boolean;
  /** The default capture where the platform has one (Web Audio); undefined leaves the buffer off. */
  capture: PcmCapture | undefined;
}

/**
 * The pre-connect buffer (CONTRACT.md, "First words"): from `start()` the caller's microphone is
 * recorded (a clone of its track, so the live track can stay silent meanwhile) and kept, at most
 * `maxMs` with the oldest dropped, so what is sent stays contiguous with the live audio that
 * follows; when the call connects over a service whose `session.ready` announced
 * `pre_connect_audio` it is sent as `input.preconnect` chunks ahead of the live audio, otherwise
 * dropped. Runs once per call (a reconnection sends nothing). An effect: it only sends through the
 * attempt it is given.
 */
export class PreConnectBuffer implements SessionEffect {
  private readonly maxMs: number;
  private readonly capture: PcmCapture | undefined;
  private blocks: Int16Array[] = [];
  private samples = 0;
  private rate = 0;
  private capable = false;
  private stopCapture: (() => void) | undefined;
  private tap: MediaStreamTrack | undefined;
  private phase: 'idle' | 'buffering' | 'done' = 'idle';
  private stats: PreConnectReport = { bufferedMs: 0, sentMs: 0, droppedMs: 0 };
  private pacing: unknown;

  constructor(option: PreConnectBufferOption | undefined, private readonly deps: PreConnectDeps) {
    const settings = typeof option === 'object' ? option : {};
    this.maxMs = option === false ? 0 : Math.max(0, Math.min(PRE_CONNECT_LIMIT_MS, settings.maxMs ?? PRE_CONNECT_DEFAULT_MS));
    this.capture = settings.capture ?? deps.capture;
  }

  /** True from `begin()` until connected: push-to-talk may be held before the call is connected. */
  get buffering(): boolean {
    return this.phase === 'buffering';
  }

  /** The microphone opened (its device track): start recording it, and hold the live track. */
  begin(track: MediaStreamTrack | undefined): void {
    if (this.phase !== 'idle' || !track || !this.capture || this.maxMs === 0) return;
    this.phase = 'buffering';
    try {
      this.tap = track.clone();
      this.deps.hold(true);
      this.stopCapture = this.capture(this.tap, (samples, rate) => this.push(samples, rate));
    } catch {
      this.finish(); // no capture here (no clone, no Web Audio): the call goes on without the buffer
    }
  }

  /** One block of the microphone (mono PCM16 at `rate`): kept when the caller may be heard. */
  push(samples: Int16Array, rate: number): void {
    if (this.phase !== 'buffering' || samples.length === 0 || !this.deps.open()) return;
    this.rate ||= rate;
    if (rate !== this.rate) return; // one stream, one rate (a capture never changes it mid-call)
    this.blocks.push(samples.slice());
    this.samples += samples.length;
    this.stats.bufferedMs += (samples.length * 1000) / rate;
    const max = Math.floor((this.maxMs * rate) / 1000);
    while (this.samples > max) {
      const first = this.blocks[0]!;
      const cut = Math.min(first.length, this.samples - max);
      this.blocks[0] = first.subarray(cut);
      if (cut === first.length) this.blocks.shift();
      this.samples -= cut;
      this.stats.droppedMs += (cut * 1000) / rate;
    }
  }

  /** The service's `session.ready`: does it take pre-connect audio? */
  ready(event: ServerEventOf<'session.ready'>): void {
    this.capable = event.capabilities?.includes(PRE_CONNECT_CAPABILITY) === true;
  }

  /**
   * Sends the first chunk now (before the live track opens, so the service knows to put the buffer
   * first), the rest paced and at most {@link QUEUED_CHUNKS} queued in the channel; the live audio
   * flows meanwhile and the service holds it until the final chunk. A connection lost meanwhile
   * takes the rest with it (the buffer is sent once). With nothing to send (off, muted, a
   * reconnection), a capable service hears so at once from a ping, rather than holding the live
   * audio for pre-connect audio until the heartbeat's first (a tick later) or its own deadline
   * (3 s on the emulator, for a client without a heartbeat).
   */
  connected(attempt: Attempt): void {
    const pcm = this.take(); // empty unless buffering
    const rate = this.rate;
    const commit = this.deps.pushToTalk && !this.deps.open();
    const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    const count = Math.ceil(bytes.length / CHUNK_BYTES);
    const next = (seq: number): void => {
      try {
        if (!count) return void attempt.send({ type: 'ping', t: this.deps.clock.now() });
        // Backpressure: pings and other messages queue behind what the channel still holds (one
        // ordered stream), so the next chunk waits while QUEUED_CHUNKS are. A lossy uplink (3G)
        // carries far less than the pace: sent anyway, the pings would wait there until the
        // heartbeat gave the link up (measured on the lab's 3g-poor profile).
        if (seq > 0 && attempt.transport.bufferedAmount > QUEUED_CHUNKS * CHUNK_BYTES) {
          this.pacing = this.deps.clock.setTimeout(() => next(seq), BACKPRESSURE_POLL_MS);
          return;
        }
        const audio = base64(bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES));
        attempt.send({ type: 'input.preconnect', seq, audio, sample_rate: rate, final: seq === count - 1 });
        this.stats.sentMs += (Math.min(bytes.length, (seq + 1) * CHUNK_BYTES) - seq * CHUNK_BYTES) * 500 / rate;
        // Push-to-talk released while connecting: that utterance is complete.
        if (seq === count - 1 && commit) attempt.send({ type: 'input.commit' });
        else if (seq < count - 1) this.pacing = this.deps.clock.setTimeout(() => next(seq + 1), (CHUNK_BYTES * 1000) / PACE_BYTES_PER_S);
      } catch {
        // The connection closed: what is left of the buffer goes with it.
      }
    };
    if (this.capable) next(0);
    this.finish();
  }

  close(): void {
    this.finish();
    this.blocks = [];
    if (this.pacing !== undefined) this.deps.clock.clearTimeout(this.pacing);
  }

  /** What `report()` says; null when the buffer is off. */
  report(): PreConnectReport | null {
    if (this.maxMs === 0 || !this.capture) return null;
    const ms = (v: number) => Math.round(v);
    return { bufferedMs: ms(this.stats.bufferedMs), sentMs: ms(this.stats.sentMs), droppedMs: ms(this.stats.droppedMs) };
  }

  private take(): Int16Array {
    const out = new Int16Array(this.samples);
    let at = 0;
    for (const block of this.blocks) {
      out.set(block, at);
      at += block.length;
    }
    this.blocks = [];
    this.samples = 0;
    return out;
  }

  /** Stops recording and gives the live track back; idempotent. */
  private finish(): void {
    if (this.phase === 'buffering') this.deps.hold(false);
    this.phase = 'done';
    this.stopCapture?.();
    this.stopCapture = undefined;
    this.tap?.stop();
    this.tap = undefined;
  }
}

/** Bytes as base64 (in pieces: a spread of a whole chunk could exceed the engine's argument limit). */
function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x2000) text += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  return btoa(text);
}
