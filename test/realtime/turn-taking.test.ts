import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateNoise, mixAtSnr, NOISE_NAMES, noiseAtSnr, activeLevelDbfs, type NoiseName } from '../../emulator/src/lab/noise.js';
import { DEFAULT_INTERRUPTIONS, interruptionSettings, InterruptionJudge, JUDGE_TRANSITIONS, type JudgeAction } from '../../emulator/src/realtime/barge-in.js';
import { EchoGuard } from '../../emulator/src/realtime/echo-guard.js';
import { resample } from '../../emulator/src/realtime/pcm.js';
import { VoiceActivityDetector, type VadEvent } from '../../emulator/src/realtime/vad.js';
import { decodeWav } from '../../emulator/src/wav.js';
import { FIXTURE_AUDIO } from './helpers.js';

// The service model's turn-taking without WebRTC: the VAD and the barge-in judge over the speech
// fixtures and the lab's generated noise, frame by frame (audio time, so fully deterministic).

async function speech16k(name: string): Promise<Int16Array> {
  const wav = decodeWav(new Uint8Array(await readFile(join(FIXTURE_AUDIO, name))));
  return resample(wav.samples, wav.sampleRate, 16000);
}

/** Runs `pcm` (after 1 s of silence, with 1 s after) through a VAD and a judge of an answer in progress. */
async function hear(pcm: Int16Array, settings = DEFAULT_INTERRUPTIONS, echo?: { guard: EchoGuard; clock: () => number }, callerDbfs?: number) {
  const judge = new InterruptionJudge(settings);
  const actions: Array<{ action: JudgeAction; atMs: number }> = [];
  const vad = await VoiceActivityDetector.create({
    ...(echo ? { echo: echo.guard } : {}),
    onFrame: (f) => {
      for (const action of judge.frame(f, true)) actions.push({ action, atMs: f.atMs });
    },
  });
  const all = new Int16Array(pcm.length + 32000);
  all.set(pcm, 16000);
  const events: VadEvent['type'][] = [];
  for (let i = 0; i < all.length; i += 160) for (const e of vad.push(all.subarray(i, i + 160), echo?.clock() ?? 0)) events.push(e.type);
  vad.close();
  return { actions, events, judge };
}

describe('barge-in judge over the fixtures', () => {
  it('speech over an answer pauses it at once and cuts it once it lasted minSpeechMs', async () => {
    for (const name of ['descale.wav', 'warranty.wav', 'boil-time.wav']) {
      const { actions, events } = await hear(await speech16k(name));
      expect(events).toEqual(['start', 'stop']);
      const [pause, cut] = actions;
      expect(pause).toMatchObject({ action: 'pause' });
      expect(cut).toMatchObject({ action: 'cut' });
      // Speech starts 0.3 s into the fixture (1.3 s here): held within 300 ms, cut after minSpeechMs.
      expect(pause!.atMs - 1300).toBeLessThanOrEqual(300);
      expect(cut!.atMs - pause!.atMs).toBeGreaterThanOrEqual(300);
      expect(cut!.atMs - 1300).toBeLessThanOrEqual(800);
    }
  });

  // Babble is speech: background only well below the caller's voice (nominal -26 dBFS until they spoke).
  const background: Array<[NoiseName, number]> = NOISE_NAMES.map((n) => [n, n === 'babble' || n === 'cafe' ? 20 : 0]);
  it.each(background)('%s at %d dB SNR neither holds nor cuts the answer, and opens no utterance but babble', async (name, snr) => {
    const { actions, events } = await hear(noiseAtSnr(generateNoise(name, { durationMs: 4000, seed: 5 }), snr));
    expect(actions).toEqual([]);
    if (name !== 'babble' && name !== 'cafe' && name !== 'fan') expect(events).toEqual([]);
  });

  it('babble as loud as the caller is a second talker: it interrupts; 20 dB under a caller who spoke at -20 dBFS it does not', async () => {
    const babble = generateNoise('babble', { durationMs: 3000, seed: 5 });
    expect((await hear(noiseAtSnr(babble, 0))).actions.map((a) => a.action)).toContain('cut');
    expect((await hear(noiseAtSnr(babble, 14), DEFAULT_INTERRUPTIONS, undefined, -20)).actions).toEqual([]);
  });

  it('speech still cuts through noise under it (cafe, music, fan at 10 dB SNR)', async () => {
    const words = await speech16k('descale.wav');
    for (const name of ['cafe', 'music', 'fan'] as const) {
      const { actions } = await hear(mixAtSnr(words, generateNoise(name, { durationMs: 3000 }), 10));
      expect(actions.map((a) => a.action)).toContain('cut');
    }
  });

  it('a sound shorter than minSpeechMs is a false interruption: held, then resumed after resumeAfterMs', async () => {
    const words = await speech16k('warranty.wav');
    const { actions, judge } = await hear(words.subarray(4800, 4800 + 16000 * 0.8), { mode: 'auto', minSpeechMs: 1500, resumeAfterMs: 400 });
    expect(actions.map((a) => a.action)).toEqual(['pause', 'resume', 'false-interruption']);
    expect(actions[1]!.atMs - actions[0]!.atMs).toBeGreaterThanOrEqual(400);
    expect(judge.falseInterruptions).toBe(1);
  });

  it('with mode off nothing is held or cut', async () => {
    const { actions } = await hear(await speech16k('descale.wav'), { ...DEFAULT_INTERRUPTIONS, mode: 'off' });
    expect(actions).toEqual([]);
  });

  it('its transitions: a pause ends in a cut or a resume, and anything ending the answer leaves it idle', () => {
    expect(JUDGE_TRANSITIONS.listening.onset).toEqual(['paused', ['pause']]);
    expect(JUDGE_TRANSITIONS.paused.confirmed).toEqual(['idle', ['cut']]);
    expect(JUDGE_TRANSITIONS.paused.lapsed).toEqual(['listening', ['resume', 'false-interruption']]);
    expect(JUDGE_TRANSITIONS.paused.idle).toEqual(['idle', []]);
    expect(JUDGE_TRANSITIONS.idle.onset).toBeUndefined();
  });
});

describe('the answer\'s echo', () => {
  it('is not the caller: the answer fed back 120 ms later at -15 dB holds nothing; the caller over it still cuts', async () => {
    const answer = await speech16k('boil-time.wav'); // stands in for the answer the emulator sends
    const guard = new EchoGuard();
    let now = 0;
    const delay = 12; // frames
    const mic = new Int16Array(answer.length + 32000);
    // What the emulator sent, frame by frame on the same clock as what the microphone hears.
    const sentAt = (frame: number) => answer.subarray(frame * 160, frame * 160 + 160);
    const echoOnly = new Int16Array(mic.length);
    for (let i = 0; i < answer.length; i++) echoOnly[16000 + i + delay * 160] = Math.round(answer[i]! * 10 ** (-15 / 20));
    const clock = () => {
      // Called once per 10 ms pushed: the reference advances with it.
      const frame = Math.round(now / 10) - 100;
      if (frame >= 0 && frame * 160 < answer.length) guard.sentFrame(sentAt(frame), now);
      now += 10;
      return now;
    };
    const quiet = await hear(echoOnly.subarray(16000, echoOnly.length - 16000), DEFAULT_INTERRUPTIONS, { guard, clock });
    expect(quiet.actions).toEqual([]);
    expect(guard.echoes).toBeGreaterThan(50);

    // The caller speaks over the echo, at their own level: double talk is the caller.
    const guard2 = new EchoGuard();
    now = 0;
    const caller = await speech16k('descale.wav');
    const both = new Int16Array(echoOnly.length);
    for (let i = 0; i < both.length; i++) both[i] = Math.max(-32768, Math.min(32767, echoOnly[i]! + (caller[i - 16000 - 8000] ?? 0)));
    const clock2 = () => {
      const frame = Math.round(now / 10) - 100;
      if (frame >= 0 && frame * 160 < answer.length) guard2.sentFrame(sentAt(frame), now);
      now += 10;
      return now;
    };
    const talk = await hear(both.subarray(16000, both.length - 16000), DEFAULT_INTERRUPTIONS, { guard: guard2, clock: clock2 });
    expect(talk.actions.map((a) => a.action)).toContain('cut');
  });

  it('starts at Geigel\'s -6 dB and learns the echo path from what it explains', () => {
    const guard = new EchoGuard();
    const far = new Int16Array(480).fill(8000);
    expect(guard.isEcho(1000, 0)).toBe(false); // nothing sent: nothing is echo
    for (let t = 0; t < 100; t++) guard.sentFrame(far, t * 10);
    expect(guard.threshold).toBeCloseTo(0.5);
    expect(guard.isEcho(5000, 1000)).toBe(false); // louder than half the far end: the caller
    for (let t = 0; t < 400; t++) expect(guard.isEcho(800, 1000)).toBe(true); // -20 dB: echo, for 4 s of answer
    expect(guard.threshold).toBeLessThan(0.25);
    expect(guard.isEcho(3000, 1000)).toBe(false); // -8.5 dB: now above the learned path + 6 dB
    expect(guard.isEcho(800, 1000 + 1100)).toBe(false); // nothing sent within the window (1 s)
  });
});

describe('interruptions settings', () => {
  it('resolves every form and refuses values out of range', () => {
    expect(interruptionSettings(undefined)).toEqual({ mode: 'auto', minSpeechMs: 500, resumeAfterMs: 2000 });
    expect(interruptionSettings('off')).toEqual({ mode: 'off', minSpeechMs: 500, resumeAfterMs: 2000 });
    expect(interruptionSettings({ minSpeechMs: 800 })).toEqual({ mode: 'auto', minSpeechMs: 800, resumeAfterMs: 2000 });
    expect(() => interruptionSettings({ minSpeechMs: 6000 })).toThrow(/minSpeechMs must be within 0\.\.5000/);
    expect(() => interruptionSettings({ resumeAfterMs: -1 })).toThrow(/resumeAfterMs/);
  });
});

describe('lab noise fixtures', () => {
  it('are seeded, at the reference level, and mix at the SNR asked', () => {
    for (const name of NOISE_NAMES) {
      const a = generateNoise(name, { durationMs: 1000, seed: 3 });
      expect(a).toEqual(generateNoise(name, { durationMs: 1000, seed: 3 }));
      expect(activeLevelDbfs(a)).toBeCloseTo(-26, 0);
    }
    expect(generateNoise('cough', { seed: 1, durationMs: 2000 })).not.toEqual(generateNoise('cough', { seed: 2, durationMs: 2000 }));
    const words = new Int16Array(16000).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
    const fan = generateNoise('fan', { durationMs: 500 });
    const mixed = mixAtSnr(words, fan, 10);
    const residue = mixed.map((x, i) => x - words[i]!);
    expect(activeLevelDbfs(words) - activeLevelDbfs(residue)).toBeCloseTo(10, 0);
    expect(() => generateNoise('fan', { durationMs: 0 })).toThrow(RangeError);
    expect(() => generateNoise('nope' as NoiseName)).toThrow(/unknown noise "nope"/);
  });
});
