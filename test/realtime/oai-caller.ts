import wrtc from '@roamhq/wrtc';
import Peer from 'simple-peer';
import * as z from 'zod/mini';
import { OAI_DATA_CHANNEL_LABEL, OaiServerEvent } from '../../src/schemas/openai-realtime.js';

type Ev<T extends OaiServerEvent['type']> = Extract<OaiServerEvent, { type: T }>;

/**
 * The caller side of an OpenAI-dialect call in Node, shaped like a browser running OpenAI's SDK:
 * simple-peer initiator with a microphone track (silence, or 48 kHz samples in real time) and the
 * `oai-events` data channel; every event received is validated against the dialect's schema.
 */
export class OaiCaller {
  readonly events: OaiServerEvent[] = [];
  callId = '';
  readonly #peer: Peer.Instance;
  readonly #source = new wrtc.nonstandard.RTCAudioSource();
  readonly #track = this.#source.createTrack();
  #queue: { samples: Int16Array; offset: number; done: () => void }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #waiters = new Set<() => void>();
  #closed = false;

  private constructor() {
    this.#peer = new Peer({
      initiator: true, wrtc, trickle: false, channelName: OAI_DATA_CHANNEL_LABEL,
      config: { iceServers: [] }, streams: [new wrtc.MediaStream([this.#track])],
    });
    this.#peer.on('data', (data: Uint8Array) => {
      this.events.push(z.parse(OaiServerEvent, JSON.parse(new TextDecoder().decode(data))));
      for (const w of this.#waiters) w();
    });
    this.#peer.on('error', () => undefined);
    this.#pump();
  }

  /** Posts the offer with `post` (which answers the SDP and the `Location` header) and connects. */
  static async connect(post: (offerSdp: string) => Promise<Response>): Promise<OaiCaller> {
    const caller = new OaiCaller();
    const offer = await new Promise<string>((resolve) => caller.#peer.on('signal', (d: Peer.SignalData) => {
      if (d.type === 'offer' && d.sdp) resolve(d.sdp);
    }));
    const res = await post(offer);
    if (res.status !== 201) {
      caller.close();
      throw new Error(`call refused: ${res.status} ${await res.text()}`);
    }
    caller.callId = res.headers.get('location')?.split('/').pop() ?? '';
    caller.#peer.signal({ type: 'answer', sdp: await res.text() });
    await new Promise<void>((resolve, reject) => {
      caller.#peer.once('connect', () => resolve());
      caller.#peer.once('error', reject);
    });
    return caller;
  }

  #pump(): void {
    const start = performance.now();
    let sent = 0;
    const tick = () => {
      if (this.#closed) return;
      const due = Math.floor((performance.now() - start) / 10) + 1;
      while (sent < due) {
        const frame = new Int16Array(480);
        const item = this.#queue[0];
        if (item) {
          frame.set(item.samples.subarray(item.offset, item.offset + 480));
          item.offset += 480;
          if (item.offset >= item.samples.length) {
            this.#queue.shift();
            item.done();
          }
        }
        this.#source.onData({ samples: frame, sampleRate: 48000, bitsPerSample: 16, channelCount: 1, numberOfFrames: 480 });
        sent++;
      }
      this.#timer = setTimeout(tick, Math.max(0, start + sent * 10 - performance.now()));
    };
    tick();
  }

  say(samples: Int16Array): Promise<void> {
    return new Promise((done) => this.#queue.push({ samples, offset: 0, done }));
  }

  send(message: unknown): void {
    this.#peer.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  waitFor<T extends OaiServerEvent['type']>(type: T, pred: (e: Ev<T>) => boolean = () => true, timeoutMs = 15000): Promise<Ev<T>> {
    const find = () => this.events.find((e): e is Ev<T> => e.type === type && pred(e as Ev<T>));
    const hit = find();
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${type}; got ${this.events.map((e) => e.type).join(', ')}`));
      }, timeoutMs);
      const check = () => {
        const e = find();
        if (!e) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(e);
      };
      this.#waiters.add(check);
    });
  }

  of<T extends OaiServerEvent['type']>(type: T): Ev<T>[] {
    return this.events.filter((e): e is Ev<T> => e.type === type);
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#track.stop();
    this.#peer.destroy();
  }
}
