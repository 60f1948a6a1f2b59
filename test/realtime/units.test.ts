import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PacedAudioOutput, FRAME_SAMPLES } from '../../emulator/src/realtime/audio-out.js';
import { placeholderAnswer, speechPlaceholder, createDefaultBrain } from '../../emulator/src/realtime/brain.js';
import { concat, resample, rms, toMono } from '../../emulator/src/realtime/pcm.js';
import { encodeServerEvent, parseClientMessage } from '../../emulator/src/realtime/v1-codec.js';
import { espeakVoice, findEspeak } from '../../emulator/src/realtime/tts-espeak.js';
import { synthesizeFormant, textToUnits } from '../../emulator/src/realtime/tts-formant.js';
import { deltaPieces } from '../../src/schemas/turn-events.js';
import { VoiceActivityDetector, VAD_SAMPLE_RATE } from '../../emulator/src/realtime/vad.js';
import { createMemoryStore } from '../../emulator/src/memory-collection.js';
import { decodeWav, encodeWav, WavFormatError } from '../../emulator/src/wav.js';
import { FIXTURE_AUDIO, makeContext, sleep } from './helpers.js';

const fixture = (name: string) => decodeWav(readFileSync(join(FIXTURE_AUDIO, name)));

/** Runs a detector over samples in 10 ms chunks plus one second of silence; returns the events. */
async function detect(samples: Int16Array) {
  const vad = await VoiceActivityDetector.create();
  const padded = new Int16Array(samples.length + VAD_SAMPLE_RATE);
  padded.set(samples);
  const events = [];
  for (let i = 0; i < padded.length; i += 160) events.push(...vad.push(padded.subarray(i, i + 160)));
  vad.close();
  return events;
}

describe('wav', () => {
  it('round-trips PCM16 mono and stereo', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    expect(decodeWav(encodeWav(samples, 16000))).toEqual({ samples, sampleRate: 16000, channels: 1 });
    expect(decodeWav(encodeWav(samples, 48000, 2))).toEqual({ samples, sampleRate: 48000, channels: 2 });
  });
  it('rejects what it cannot read', () => {
    expect(() => decodeWav(new Uint8Array(8))).toThrow(WavFormatError);
    const float = encodeWav(new Int16Array(4), 8000);
    new DataView(float.buffer).setUint16(20, 3, true);
    expect(() => decodeWav(float)).toThrow(/only PCM16/);
  });
  it('reads the committed fixtures', () => {
    const wav = fixture('boil-time.wav');
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 1 });
    expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(3);
  });
});

describe('pcm', () => {
  it('down-mixes and resamples', () => {
    expect(toMono(Int16Array.from([100, 300, -100, -300]), 2)).toEqual(Int16Array.from([200, -200]));
    const tone = new Int16Array(4800).map((_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 440 * i) / 48000)));
    const down = resample(tone, 48000, 16000);
    expect(down.length).toBe(1600);
    expect(rms(down)).toBeCloseTo(rms(tone), 2);
    expect(resample(down, 16000, 22050).length).toBe(2205);
  });
  it('joins chunks, optionally only their first samples', () => {
    const chunks = [Int16Array.from([1, 2]), Int16Array.from([3]), Int16Array.from([4, 5])];
    expect(concat(chunks)).toEqual(Int16Array.from([1, 2, 3, 4, 5]));
    expect(concat(chunks, 4)).toEqual(Int16Array.from([1, 2, 3, 4]));
    expect(concat(chunks, 99)).toHaveLength(5);
  });
  it('upsamples by an integer factor with the same linear interpolation as any other ratio', () => {
    expect(resample(Int16Array.from([0, 300, -300]), 16000, 48000)).toEqual(Int16Array.from([0, 100, 200, 300, 100, -100, -300, -300, -300]));
    // Sample by sample against the general path's formula.
    const speech = new Int16Array(1600).map((_, i) => Math.round(12000 * Math.sin(i / 3) + 5000 * Math.sin(i / 17)));
    const fast = resample(speech, 16000, 48000);
    for (let j = 0; j < fast.length; j++) {
      const pos = j / 3;
      const i0 = Math.min(Math.floor(pos), speech.length - 1);
      const i1 = Math.min(i0 + 1, speech.length - 1);
      expect(Math.abs(fast[j]! - (speech[i0]! * (1 - (pos - i0)) + speech[i1]! * (pos - i0)))).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('voice-activity detection', () => {
  it('finds exactly one utterance per fixture with its speech duration', async () => {
    for (const name of ['boil-time.wav', 'warranty.wav', 'descale.wav']) {
      const wav = fixture(name);
      const events = await detect(wav.samples);
      expect(events.map((e) => e.type)).toEqual(['start', 'stop']);
      const stop = events[1]!;
      if (stop.type !== 'stop') throw new Error('unreachable');
      const totalMs = (wav.samples.length / wav.sampleRate) * 1000;
      // The fixtures carry 0.3 s of silence before and 0.5 s after the speech.
      expect(stop.speechMs).toBeGreaterThan(totalMs - 800 - 700);
      expect(stop.speechMs).toBeLessThanOrEqual(totalMs - 800 + 50);
      expect(stop.audio.length / 16).toBeGreaterThan(stop.speechMs);
    }
  });
  it('ignores silence, and a click shorter than the start hangover', async () => {
    expect(await detect(new Int16Array(16000))).toEqual([]);
    const wav = fixture('warranty.wav');
    // 30 ms of speech: libfvad itself holds "voiced" a few frames longer, still short of 100 ms.
    const click = wav.samples.slice(0.3 * 16000 + 3200, 0.3 * 16000 + 3200 + 480);
    expect(await detect(click)).toEqual([]);
  });
});

describe('built-in voice', () => {
  it('is audible, speech-like for the VAD, and lasts in proportion to the text', async () => {
    const short = synthesizeFormant('Hello there.');
    const long = synthesizeFormant('Hello there. The kettle boils one litre of water in about three minutes, and keeps it warm.');
    expect(short.sampleRate).toBe(48000);
    const shortMs = (short.samples.length / 48000) * 1000;
    const longMs = (long.samples.length / 48000) * 1000;
    expect(shortMs).toBeGreaterThan(500);
    expect(longMs / shortMs).toBeGreaterThan(5);
    expect(rms(long.samples)).toBeGreaterThan(0.05);
    const events = await detect(resample(long.samples, 48000, 16000));
    expect(events[0]?.type).toBe('start');
    expect(synthesizeFormant('').samples.length).toBe(0);
    // Japanese text gets one syllable per character.
    expect(textToUnits('こんにちは').filter((u) => u.kind === 'syllable')).toHaveLength(5);
  });
  it('maps languages to espeak-ng voices', () => {
    expect(espeakVoice('en')).toBe('en-us');
    expect(espeakVoice('ja-JP')).toBe('ja');
    expect(findEspeak({ PATH: '/nonexistent' })).toBeNull();
  });
  it('uses espeak-ng as a separate program when it is installed', async (t) => {
    if (!findEspeak()) t.skip();
    const brain = createDefaultBrain({ store: createMemoryStore(), voice: 'espeak' });
    const pcm = await brain.synthesize({ text: 'Hello.', language: 'en', signal: new AbortController().signal });
    expect(pcm.sampleRate).toBe(22050);
    expect(rms(pcm.samples)).toBeGreaterThan(0.01);
  });
});

describe('default brain', () => {
  it('has no recognizer and says so with the measured duration', async () => {
    const brain = createDefaultBrain({ store: createMemoryStore() });
    expect(await brain.recognize({ audio: { samples: new Int16Array(16000), sampleRate: 16000 }, language: 'en', durationMs: 1000 })).toBeNull();
    expect(speechPlaceholder(1849)).toBe('[speech 1.8 s — no recognizer configured]');
  });
  it('answers placeholders honestly and typed questions from the dataset', async () => {
    const env = await makeContext();
    try {
      const brain = createDefaultBrain({ store: env.ctx.store });
      const signal = new AbortController().signal;
      const base = { robotId: env.robotId, sessionId: 's', signal, input: 'voice' as const };
      const en = await brain.answer({ ...base, question: speechPlaceholder(1800), language: 'en', placeholder: true });
      expect(en.answer).toBe('No speech recognizer is configured, so I could not understand that. Please type your question about Aozora AK-3 Smart Kettle FAQ.');
      expect(placeholderAnswer(env.ctx.store, env.robotId, 'ja').answer).toMatch(/^音声認識が設定されていない.*アオゾラ/);
      const typed = await brain.answer({ ...base, input: 'text', question: 'How long is the warranty?', language: 'en', placeholder: false });
      expect(typed.answer).toMatch(/two-year warranty/);
      expect(typed.references?.length).toBeGreaterThan(0);
    } finally {
      await env.dispose();
    }
  });
});

describe('protocol', () => {
  it('parses client events, ignores other versions and explains invalid ones', () => {
    expect(parseClientMessage('{"v":1,"type":"ping","t":3}')).toEqual({ kind: 'event', event: { v: 1, type: 'ping', t: 3 } });
    expect(parseClientMessage(new TextEncoder().encode('{"v":1,"type":"session.end"}'))).toMatchObject({ kind: 'event' });
    expect(parseClientMessage('{"v":2,"type":"x"}')).toMatchObject({ kind: 'ignored' });
    expect(parseClientMessage('[1]')).toMatchObject({ kind: 'invalid', message: 'message must be a JSON object' });
    expect(parseClientMessage('{"v":1,"type":"input.text","text":"hi","extra":1}')).toMatchObject({ kind: 'invalid' });
  });
  it('refuses to send an invalid server event', () => {
    expect(() => encodeServerEvent({ type: 'pong', t: 'x' } as never)).toThrow(/invalid server event pong/);
    expect(JSON.parse(encodeServerEvent({ type: 'pong', t: 1 }))).toEqual({ v: 1, type: 'pong', t: 1 });
  });
  it('streams answers in pieces that join back exactly', () => {
    for (const text of ['The kettle boils  water.', '1リットルのお湯を約3分で沸かします。 OK', ' lead']) {
      expect(deltaPieces(text).join('')).toBe(text);
    }
  });
});

describe('paced output', () => {
  it('sends 10 ms frames of 480 samples in real time, and stops on demand', async () => {
    const frames: number[] = [];
    const out = new PacedAudioOutput({ onData: (d) => frames.push(d.samples.length) });
    const done = out.play(new Int16Array(48000 * 0.3).fill(1000)).done;
    const result = await done;
    expect(result.reason).toBe('completed');
    expect(frames).toHaveLength(30);
    expect(frames.every((n) => n === FRAME_SAMPLES)).toBe(true);
    expect(result.sentMs).toBe(300);

    frames.length = 0;
    const playback = out.play(new Int16Array(48000 * 5));
    await sleep(100);
    playback.stop('interrupted');
    const stopped = await playback.done;
    expect(stopped.reason).toBe('interrupted');
    expect(frames.length).toBeLessThan(100);
    expect(stopped.sentMs).toBe(frames.length * 10);
    expect(out.playing).toBe(false);
  });

  it('a paused clip sends silence and keeps its place; resumed, it plays to its end, whole', async () => {
    const frames: Int16Array[] = [];
    // Resolves once `n` frames have been sent, from the sender's own callback (no polling).
    let waiting: { n: number; resolve: () => void } | undefined;
    const sent = (n: number) => new Promise<void>((resolve) => (frames.length >= n ? resolve() : (waiting = { n, resolve })));
    const out = new PacedAudioOutput({
      onData: (d) => {
        frames.push(d.samples);
        if (waiting && frames.length >= waiting.n) waiting.resolve();
      },
    });
    const playback = out.stream();
    playback.append(new Int16Array(48000 * 0.3).fill(1000));
    playback.finish();
    await sent(5);
    playback.pause();
    expect(playback.paused).toBe(true);
    const heldFrom = frames.length;
    await sent(heldFrom + 10);
    // Held: silence on the line, the clip where it was.
    expect(frames.slice(heldFrom + 1, heldFrom + 10).every((f) => f.every((x) => x === 0))).toBe(true);
    playback.resume();
    const result = await playback.done;
    expect(result).toMatchObject({ reason: 'completed', sentMs: 300 });
    expect(frames.filter((f) => f[0] === 1000)).toHaveLength(30);
  });
});
