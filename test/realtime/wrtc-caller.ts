import wrtc from '@roamhq/wrtc';
import Peer from 'simple-peer';

/**
 * The caller side of a realtime call in Node, as a browser would be: simple-peer initiator with a
 * microphone track (RTCAudioSource fed with silence, or 48 kHz samples in real time) and one data
 * channel whose messages are parsed (validated) into `events`. The v1 `Caller` and the OpenAI
 * protocol's `OaiCaller` differ only in the channel label, the event schema and the signaling.
 */
export class WrtcCaller<E extends { type: string }> {
  readonly events: E[] = [];
  protected readonly peer: Peer.Instance;
  readonly #source = new wrtc.nonstandard.RTCAudioSource();
  readonly #track = this.#source.createTrack();
  #queue: { samples: Int16Array; offset: number; done: () => void }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #waiters = new Set<() => void>();
  #closed = false;
  /** Speakers into microphone: what the caller hears, mixed back into what it sends. */
  #echo: { gain: number; delayFrames: number; line: Int16Array[] } | undefined;

  protected constructor(channelName: string, parse: (message: unknown) => E) {
    this.peer = new Peer({
      initiator: true, wrtc, trickle: false, channelName,
      config: { iceServers: [] }, streams: [new wrtc.MediaStream([this.#track])],
    });
    this.peer.on('data', (data: Uint8Array) => {
      // The caller validates what it receives, as the client does.
      this.events.push(parse(JSON.parse(new TextDecoder().decode(data))));
      for (const w of this.#waiters) w();
    });
    this.peer.on('error', () => undefined);
    this.#pump();
  }

  /** The offer, once simple-peer has it (with its candidates: no trickle). */
  protected offer(): Promise<string> {
    return new Promise<string>((resolve) => this.peer.on('signal', (d: Peer.SignalData) => {
      if (d.type === 'offer' && d.sdp) resolve(d.sdp);
    }));
  }

  /** Applies the answer and resolves once the data channel is open. */
  protected async answer(sdp: string): Promise<void> {
    this.peer.signal({ type: 'answer', sdp });
    await new Promise<void>((resolve, reject) => {
      this.peer.once('connect', () => resolve());
      this.peer.once('error', reject);
    });
  }

  /** Microphone: 10 ms frames at 48 kHz, scheduled on absolute time; silence when nothing is queued. */
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
        const echo = this.#echo;
        if (echo && echo.line.length > echo.delayFrames) {
          const heard = echo.line.shift()!;
          for (let i = 0; i < 480; i++) frame[i] = Math.max(-32768, Math.min(32767, frame[i]! + Math.round((heard[i] ?? 0) * echo.gain)));
        }
        this.#source.onData({ samples: frame, sampleRate: 48000, bitsPerSample: 16, channelCount: 1, numberOfFrames: 480 });
        sent++;
      }
      this.#timer = setTimeout(tick, Math.max(0, start + sent * 10 - performance.now()));
    };
    tick();
  }

  /**
   * A caller on speakers: from now on, every 10 ms of the audio received (see {@link heard}) goes
   * back out through the microphone `delayMs` later, attenuated by `gainDb` (negative), mixed with
   * whatever else is spoken.
   */
  loopback(delayMs: number, gainDb: number): void {
    this.#echo = { gain: 10 ** (gainDb / 20), delayFrames: Math.round(delayMs / 10), line: [] };
  }

  /** 10 ms of received audio (48 kHz mono), for {@link loopback}. */
  protected heard(frame: Int16Array): void {
    const echo = this.#echo;
    if (!echo) return;
    echo.line.push(frame);
    // The microphone pump drains one frame per 10 ms; never let a stall grow the delay.
    while (echo.line.length > echo.delayFrames + 20) echo.line.shift();
  }

  /** Speaks 48 kHz samples into the microphone in real time; resolves when they are sent. */
  say(samples: Int16Array): Promise<void> {
    return new Promise((done) => this.#queue.push({ samples, offset: 0, done }));
  }

  /** RTP packets the microphone track has sent so far (libwebrtc's outbound-rtp stats). */
  async packetsSent(): Promise<number> {
    const pc = (this.peer as unknown as { _pc: RTCPeerConnection })._pc;
    let sent = 0;
    (await pc.getStats()).forEach((r: { type: string; kind?: string; packetsSent?: number }) => {
      if (r.type === 'outbound-rtp' && r.kind === 'audio') sent += r.packetsSent ?? 0;
    });
    return sent;
  }

  send(message: unknown): void {
    this.peer.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Resolves the first event (past or future) of `type` matching `pred`. */
  waitFor<T extends E['type']>(type: T, pred: (e: Extract<E, { type: T }>) => boolean = () => true, timeoutMs = 15000): Promise<Extract<E, { type: T }>> {
    const find = () => this.events.find((e): e is Extract<E, { type: T }> => e.type === type && pred(e as Extract<E, { type: T }>));
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

  of<T extends E['type']>(type: T): Extract<E, { type: T }>[] {
    return this.events.filter((e): e is Extract<E, { type: T }> => e.type === type);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#track.stop();
    this.peer.destroy();
  }
}
