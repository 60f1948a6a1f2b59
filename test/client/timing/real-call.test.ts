import { readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from 'kb-voice-emulator';
import { createApiClient } from '../../../src/api/index.js';
import { VoiceSession, type Turn } from '../../../src/client/index.js';
import { TIMING_PHASES } from '../../../src/client/timing/phases.js';
import { sinkLevelMeter } from '../helpers/level-meter.js';
import { FakeMicrophone } from '../helpers/microphone.js';
import { nextTurn } from '../helpers/turns.js';

// Turn.timing in a real call: the real controller (Node, @roamhq/wrtc) against the real emulator on
// loopback, a WAV spoken into it in real time. The figures depend on the machine's load, so this
// checks what holds whatever the load: which phases are measured, that they add up, and where the
// service's own figures come from. The figures themselves are the bench's (bench/perceived-latency.mjs).

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
let emu: Emulator;
const cleanups: Array<() => void | Promise<void>> = [];

beforeEach(async () => {
  emu = await startEmulator({ port: 0, agentBuildMs: 0 });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await emu.close();
});

describe('Turn.timing in a real call (Node, emulator)', () => {
  it('measures every phase but the output latency (none in Node), and they add up to the perceived latency', async () => {
    const mic = new FakeMicrophone();
    const session = new VoiceSession({
      aiId: emu.fixtures.robotId, api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), wrtc: wrtc as never,
      microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter, heartbeatIntervalMs: 250,
    });
    cleanups.push(async () => {
      await session.end({ mode: 'immediate' });
      mic.close();
    });
    await session.start();
    // a few pongs measure the path and the service's clock, and a quality sample the jitter buffer
    await new Promise<void>((resolve) => session.once('quality', () => resolve()));
    const done = nextTurn(session);
    await mic.playWav(readFileSync(new URL('../../fixtures/audio/boil-time.wav', import.meta.url)));
    const turn: Turn = await done;
    expect(turn.input).toBe('voice');
    const t = turn.timing;
    expect(t.serviceMs).toBe(turn.firstResponseMs);
    expect(t.playbackMs).toBeNull();
    for (const phase of TIMING_PHASES.filter((p) => p !== 'playback')) expect(t[`${phase}Ms`], phase).not.toBeNull();
    // the emulator's voice detection waits 600 ms of silence before it calls the speech over
    expect(t.endpointingMs!).toBeGreaterThanOrEqual(500);
    const sum = TIMING_PHASES.reduce((a, p) => a + (t[`${p}Ms`] ?? 0), 0);
    expect(sum).toBe(turn.perceivedLatencyMs);
    console.info(`[timing] perceived ${turn.perceivedLatencyMs} ms = ${TIMING_PHASES.map((p) => `${p} ${t[`${p}Ms`]}`).join(' + ')} (first response ${turn.firstResponseMs})`);
  }, 40_000);
});
