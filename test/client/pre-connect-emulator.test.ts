import { readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type PcmCapture, type Turn } from '../../src/client/index.js';
import { startEmulator } from 'kb-voice-emulator';
import { missedStartMs } from '../../qa/src/first-words.js';
import { decodeWav } from '../../emulator/src/wav.js';
import { FakeMicrophone } from './helpers/microphone.js';
import { nextTurn } from './helpers/turns.js';
import { sinkLevelMeter } from './helpers/level-meter.js';
import { ONE_QUESTION_REALTIME } from '../helpers/emulator.js';

// The pre-connect buffer end to end: a real VoiceSession, the real emulator, real WebRTC (@roamhq/wrtc).
// The caller starts the question the moment start() opened the microphone; signaling is slowed
// by the emulator's latency fault, so the call connects well after the question began. What the
// service recorded of the question is compared with what was said (kb-voice-qa's measure): with
// the buffer it is whole, without it its start is missing. No wall-clock bound: the figures are
// what the service holds, whatever the machine's speed.

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
const { RTCAudioSink } = wrtc.nonstandard;

/** Node's capture: wrtc's RTCAudioSink on the cloned track, averaged down to 8 kHz as the browser's capture does. */
const sinkCapture: PcmCapture = (track, onPcm) => {
  const sink = new RTCAudioSink(track);
  sink.ondata = (d: { samples: Int16Array; sampleRate: number; channelCount?: number }) => {
    const channels = d.channelCount ?? 1;
    const ratio = d.sampleRate / 8000;
    const out = new Int16Array(Math.floor(d.samples.length / channels / ratio));
    for (let i = 0; i < out.length; i++) {
      let sum = 0;
      for (let k = 0; k < ratio; k++) sum += d.samples[(i * ratio + k) * channels]!;
      out[i] = Math.round(sum / ratio);
    }
    onPcm(out, 8000);
  };
  return () => sink.stop();
};

/**
 * One long continuous utterance (the warranty question's speech four times over, no pause the
 * service's end-of-speech wait would split it at, after its 320 ms lead-in): 5.4 s, so that part of
 * it is said after the call connected even on a slow machine, and the cut is measurable.
 */
const QUESTION = (() => {
  const { samples, sampleRate } = decodeWav(readFileSync(new URL('../fixtures/audio/warranty.wav', import.meta.url)));
  const lead = samples.subarray(0, (sampleRate * 320) / 1000);
  const speech = samples.subarray(lead.length, (sampleRate * 1600) / 1000);
  const out = new Int16Array(lead.length + speech.length * 4);
  out.set(lead);
  for (let i = 0; i < 4; i++) out.set(speech, lead.length + i * speech.length);
  return { samples: out, sampleRate };
})();
let emu: Emulator;
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(async () => {
  // The question must stay one turn on a starved CPU (ONE_QUESTION_REALTIME says why).
  emu = await startEmulator({ port: 0, agentBuildMs: 0, realtime: ONE_QUESTION_REALTIME });
  // Every HTTP answer (signaling included) 1 s late: the question is under way long before the call connects.
  const res = await fetch(`${emu.url}/_emulator/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ latencyMs: 1000 }) });
  expect(res.ok).toBe(true);
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await emu.close();
});

async function questionAtStart(preConnectBuffer: false | { capture: PcmCapture }): Promise<{ turn: Turn; session: VoiceSession; missed: ReturnType<typeof missedStartMs> }> {
  const mic = new FakeMicrophone({ emulatorUrl: emu.url });
  let opened!: () => void;
  const micOpen = new Promise<void>((resolve) => (opened = resolve));
  const session = new VoiceSession({
    aiId: emu.fixtures.robotId, api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), wrtc: wrtc as never, language: 'en',
    microphone: async (deviceId) => {
      const stream = await mic.open(deviceId);
      opened();
      return stream as MediaStream;
    },
    levelMeter: sinkLevelMeter,
    preConnectBuffer,
  });
  cleanups.push(async () => {
    await session.end({ mode: 'immediate' });
    mic.close();
  });
  // Within the test's own 60 s: a starved CPU took over 20 s (signaling 1 s late, a 5.4 s question, 2 s of end of speech, the answer).
  const turnDone = nextTurn(session, 45_000);
  const started = session.start();
  await micOpen;
  const said = mic.play(QUESTION.samples, QUESTION.sampleRate);
  await started;
  await said;
  const turn = await turnDone;
  const report = await session.report();
  const recording = await fetch(report.audio[0]!.url);
  const heard = decodeWav(new Uint8Array(await recording.arrayBuffer()));
  return { turn, session, missed: missedStartMs(QUESTION.samples, QUESTION.sampleRate, heard.samples, heard.sampleRate) };
}

describe('pre-connect buffer against the emulator over WebRTC', () => {
  it('on: the service hears the question said while connecting from its first syllable, and the turn says how much was buffered', async () => {
    const { turn, session, missed } = await questionAtStart({ capture: sinkCapture });
    expect(missed.missedMs).toBeLessThanOrEqual(100);
    expect(turn.timing.preConnectMs).toBeGreaterThan(500); // the buffer holds at least the 1 s of signaling; the utterance starts in it
    const report = await session.report();
    expect(report.preConnect!.sentMs).toBeGreaterThan(900); // from the microphone opening to connected: at least the 1 s of signaling
    expect(report.preConnect!.droppedMs).toBe(0);
  }, 60_000);

  it('off: the question said while connecting reaches the service cut', async () => {
    const { turn, missed } = await questionAtStart(false);
    expect(missed.missedMs).toBeGreaterThan(500); // at least the 1 s of signaling less the 320 ms lead-in
    expect(turn.timing.preConnectMs).toBeUndefined();
  }, 60_000);
});
