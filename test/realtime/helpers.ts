import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wrtc from '@roamhq/wrtc';
import Peer from 'simple-peer';
import { createAgentBuilder, type ManagedAgentBuilder } from '../../emulator/src/agents.js';
import type { EmulatorContext, Faults } from '../../emulator/src/context.js';
import { seedStore } from '../../emulator/src/fixtures/seed.js';
import { resample } from '../../emulator/src/realtime/pcm.js';
import { ScriptQueue } from '../../emulator/src/script.js';
import { createMemoryStore } from '../../emulator/src/store.js';
import { decodeWav } from '../../emulator/src/wav.js';
import { DATA_CHANNEL_LABEL, ServerEvent } from '../../src/schemas/realtime-events.js';

export const FIXTURE_AUDIO = join(import.meta.dirname, '..', 'fixtures', 'audio');

/** A real emulator context without HTTP: seeded store, real agent builder, temporary audio folder. */
export async function makeContext(agentBuildMs = 300): Promise<{ ctx: EmulatorContext; agents: ManagedAgentBuilder; robotId: string; dispose(): Promise<void> }> {
  const store = createMemoryStore();
  const audioDir = await mkdtemp(join(tmpdir(), 'kbv-rt-'));
  const faults: Faults = { warmup: 'ok', latencyMs: 0 };
  const agents = createAgentBuilder({ agentBuildMs, faults: () => faults });
  const fixtures = await seedStore(store, { apiKey: 'test-key', audioDir });
  const ctx: EmulatorContext = {
    store, agents, faults, apiKey: 'test-key', agentBuildMs, audioDir, script: new ScriptQueue(), baseUrl: () => 'http://127.0.0.1:1',
  };
  return {
    ctx, agents, robotId: fixtures.robotId,
    async dispose() {
      agents.close();
      await rm(audioDir, { recursive: true, force: true });
    },
  };
}

/** A fixture WAV as 48 kHz mono samples. */
export async function fixture48k(name: string): Promise<Int16Array> {
  const wav = decodeWav(new Uint8Array(await readFile(join(FIXTURE_AUDIO, name))));
  return resample(wav.samples, wav.sampleRate, 48000);
}

type Signal = (offerSdp: string) => Promise<{ session_id: string; sdp: string }>;

/**
 * The caller side of a realtime session in Node, as a browser would be: simple-peer initiator with
 * a microphone track (RTCAudioSource fed with silence, or a fixture in real time), the `kb-voice`
 * data channel, and an RTCAudioSink measuring the assistant's audio.
 */
export class Caller {
  readonly events: ServerEvent[] = [];
  sessionId = '';
  /** 10 ms frames received from the assistant, and how many of them carry sound. */
  received = { frames: 0, loud: 0 };
  readonly #peer: Peer.Instance;
  readonly #source = new wrtc.nonstandard.RTCAudioSource();
  readonly #track = this.#source.createTrack();
  #sink: InstanceType<typeof wrtc.nonstandard.RTCAudioSink> | undefined;
  #queue: { samples: Int16Array; offset: number; done: () => void }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #waiters = new Set<() => void>();
  #closed = false;

  private constructor() {
    this.#peer = new Peer({
      initiator: true, wrtc, trickle: false, channelName: DATA_CHANNEL_LABEL,
      config: { iceServers: [] }, streams: [new wrtc.MediaStream([this.#track])],
    });
    this.#peer.on('data', (data: Uint8Array) => {
      // The caller validates what it receives, as the client does.
      this.events.push(ServerEvent.parse(JSON.parse(new TextDecoder().decode(data))));
      for (const w of this.#waiters) w();
    });
    this.#peer.on('track', (track: MediaStreamTrack) => {
      if (this.#sink) return;
      this.#sink = new wrtc.nonstandard.RTCAudioSink(track);
      this.#sink.ondata = (d: { samples: Int16Array }) => {
        this.received.frames++;
        let peak = 0;
        for (const s of d.samples) peak = Math.max(peak, Math.abs(s));
        if (peak > 1000) this.received.loud++;
      };
    });
    this.#peer.on('error', () => undefined);
    this.#pump();
  }

  static async connect(signal: Signal): Promise<Caller> {
    const caller = new Caller();
    const offer = await new Promise<string>((resolve) => caller.#peer.on('signal', (d: Peer.SignalData) => {
      if (d.type === 'offer' && d.sdp) resolve(d.sdp);
    }));
    const answer = await signal(offer);
    caller.sessionId = answer.session_id;
    caller.#peer.signal({ type: 'answer', sdp: answer.sdp });
    await new Promise<void>((resolve, reject) => {
      caller.#peer.once('connect', () => resolve());
      caller.#peer.once('error', reject);
    });
    return caller;
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
        this.#source.onData({ samples: frame, sampleRate: 48000, bitsPerSample: 16, channelCount: 1, numberOfFrames: 480 });
        sent++;
      }
      this.#timer = setTimeout(tick, Math.max(0, start + sent * 10 - performance.now()));
    };
    tick();
  }

  /** Speaks 48 kHz samples into the microphone in real time; resolves when they are sent. */
  say(samples: Int16Array): Promise<void> {
    return new Promise((done) => this.#queue.push({ samples, offset: 0, done }));
  }

  send(message: unknown): void {
    this.#peer.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Resolves the first event (past or future) of `type` matching `pred`. */
  waitFor<T extends ServerEvent['type']>(type: T, pred: (e: Extract<ServerEvent, { type: T }>) => boolean = () => true, timeoutMs = 15000): Promise<Extract<ServerEvent, { type: T }>> {
    const find = () => this.events.find((e): e is Extract<ServerEvent, { type: T }> => e.type === type && pred(e as Extract<ServerEvent, { type: T }>));
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

  of<T extends ServerEvent['type']>(type: T): Extract<ServerEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<ServerEvent, { type: T }> => e.type === type);
  }

  /** Resolves when the service side closes the connection. */
  closedByPeer(timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('peer did not close')), timeoutMs);
      this.#peer.once('close', () => { clearTimeout(timer); resolve(); });
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#sink?.stop();
    this.#track.stop();
    this.#peer.destroy();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
