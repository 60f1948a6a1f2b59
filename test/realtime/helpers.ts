import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wrtc from '@roamhq/wrtc';
import { afterAll, beforeAll } from 'vitest';
import { createAgentBuilder, type ManagedAgentBuilder } from '../../emulator/src/agents.js';
import type { EmulatorContext, Faults } from '../../emulator/src/context.js';
import { seedStore } from '../../emulator/src/fixtures/seed.js';
import { createRealtimeService, type RealtimeService, type RealtimeServiceOptions } from '../../emulator/src/realtime/index.js';
import { resample, toMono } from '../../emulator/src/realtime/pcm.js';
import { ScriptQueue } from '../../emulator/src/script.js';
import { createMemoryStore } from '../../emulator/src/memory-collection.js';
import { decodeWav } from '../../emulator/src/wav.js';
import { DATA_CHANNEL_LABEL, ServerEvent } from '../../src/schemas/realtime-events.js';
import type { RealtimeSessionIn } from '../../src/schemas/realtime.js';
import { WrtcCaller } from './wrtc-caller.js';

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
 * The v1 caller: the `kb-voice` data channel, and an RTCAudioSink measuring the assistant's audio.
 */
export class Caller extends WrtcCaller<ServerEvent> {
  sessionId = '';
  /** The emulator's SDP answer. */
  answerSdp = '';
  /** 10 ms frames received from the assistant, and how many of them carry sound. */
  received = { frames: 0, loud: 0 };
  #sink: InstanceType<typeof wrtc.nonstandard.RTCAudioSink> | undefined;

  private constructor() {
    super(DATA_CHANNEL_LABEL, (message) => ServerEvent.parse(message));
    this.peer.on('track', (track: MediaStreamTrack) => {
      if (this.#sink) return;
      this.#sink = new wrtc.nonstandard.RTCAudioSink(track);
      this.#sink.ondata = (d: { samples: Int16Array; sampleRate: number; channelCount?: number }) => {
        this.heard(resample(toMono(d.samples, d.channelCount ?? 1), d.sampleRate, 48000));
        this.received.frames++;
        let peak = 0;
        for (const s of d.samples) peak = Math.max(peak, Math.abs(s));
        if (peak > 1000) this.received.loud++;
      };
    });
  }

  static async connect(signal: Signal): Promise<Caller> {
    const caller = new Caller();
    const answer = await signal(await caller.offer());
    caller.sessionId = answer.session_id;
    caller.answerSdp = answer.sdp;
    await caller.answer(answer.sdp);
    return caller;
  }

  /** Resolves when the service side closes the connection. */
  closedByPeer(timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('peer did not close')), timeoutMs);
      this.peer.once('close', () => { clearTimeout(timer); resolve(); });
    });
  }

  override close(): void {
    this.#sink?.stop();
    super.close();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A realtime service on a fresh seeded context for one test file (set up in `beforeAll`, closed
 * with every caller connected through it in `afterAll`).
 */
export function realtimeFixture(options: RealtimeServiceOptions, agentBuildMs = 10) {
  let env: Awaited<ReturnType<typeof makeContext>> | undefined;
  let service: RealtimeService | undefined;
  const callers: Caller[] = [];
  beforeAll(async () => {
    env = await makeContext(agentBuildMs);
    service = createRealtimeService(env.ctx, options);
  });
  afterAll(async () => {
    for (const c of callers) c.close();
    await service?.close();
    await env?.dispose();
  });
  return {
    get env() { return env!; },
    get service() { return service!; },
    /**
     * A v1 caller connected with a plain offer (language `en` unless `body` says otherwise); with
     * `ready`, once its `session.ready` arrived.
     */
    async connect(body: { session_id?: string; language?: string; user_identifier?: string; interruptions?: RealtimeSessionIn['interruptions']; turn_taking?: RealtimeSessionIn['turn_taking'] } = {}, { ready = false } = {}): Promise<Caller> {
      const caller = await Caller.connect((sdp) => service!.handleOffer(env!.robotId, { type: 'offer', sdp, language: 'en', ...body }));
      callers.push(caller);
      if (ready) await caller.waitFor('session.ready');
      return caller;
    },
  };
}
