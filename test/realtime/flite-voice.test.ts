import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealtimeService, type Brain, type RealtimeService } from '../../emulator/src/realtime/index.js';
import { resample } from '../../emulator/src/realtime/pcm.js';
import { speechSentences, trimLeadIn } from '../../emulator/src/realtime/speech.js';
import { FliteError, FlitePool, sharedFlitePool, synthesizeFlite } from '../../emulator/src/realtime/tts-flite.js';
import { synthesizeFormant } from '../../emulator/src/realtime/tts-formant.js';
import { decodeWav } from '../../emulator/src/wav.js';
import { readFileSync } from 'node:fs';
import { performance as nodePerformance } from 'node:perf_hooks';
import { averageSpectrum, shapeCorrelation } from '../helpers/spectrum.js';
import { Caller, fixture48k, makeContext, realtimeFixture } from './helpers.js';

const WARRANTY = 'The Aozora AK-3 comes with a two-year warranty from the date of purchase.';

describe('speechSentences', () => {
  it('splits after sentence ends, keeps decimals and whitespace, and joins back exactly', () => {
    const text = 'It boils in 2.5 minutes. Really?  Yes!\nNext line 次です。終わり';
    const parts = speechSentences(text);
    expect(parts).toEqual(['It boils in 2.5 minutes. ', 'Really?  ', 'Yes!\n', 'Next line 次です。', '終わり']);
    expect(parts.join('')).toBe(text);
    expect(speechSentences('')).toEqual([]);
    expect(speechSentences('No full stop')).toEqual(['No full stop']);
  });
});

describe('Flite (WASI) in worker threads', () => {
  it('speaks English words as 16 kHz speech whose length follows the text', async () => {
    const short = await synthesizeFlite('Yes.');
    const long = await synthesizeFlite(WARRANTY);
    expect(long.sampleRate).toBe(16000);
    const longS = long.samples.length / long.sampleRate;
    expect(longS).toBeGreaterThan(3);
    expect(longS).toBeLessThan(7);
    expect(short.samples.length).toBeLessThan(long.samples.length / 3);
    // Deterministic: the same text gives the same audio.
    const again = await synthesizeFlite(WARRANTY);
    expect(Buffer.from(again.samples.buffer).equals(Buffer.from(long.samples.buffer))).toBe(true);
    // Speech, not the formant babble: its spectrum (0-8 kHz, dB) matches Flite's for other words, not the formant voice's.
    const spectrum = (pcm: { samples: Int16Array; sampleRate: number }) => averageSpectrum(resample(pcm.samples, pcm.sampleRate, 48000), 48000, 32, 8000);
    const other = spectrum(await synthesizeFlite('Descale the kettle every month with citric acid.'));
    expect(shapeCorrelation(spectrum(long), other)).toBeGreaterThan(0.95);
    expect(shapeCorrelation(spectrum(synthesizeFormant(WARRANTY)), other)).toBeLessThan(0.9);
  });

  it('runs off the main thread: the event loop stays idle while sentences are synthesized', async () => {
    const pool = await sharedFlitePool();
    await pool.warm();
    // The main thread's own busy share over the synthesis (event-loop utilization: busy / (busy +
    // idle), a ratio of this thread's time, whatever else the machine runs). Synthesizing here would
    // keep it busy throughout (~1); in workers it only takes their messages.
    const before = nodePerformance.eventLoopUtilization();
    // slt: ~40 ms a sentence, long enough that a blocked loop would show (kal16 takes ~5 ms).
    const pcm = await Promise.all(Array.from({ length: 6 }, (_, i) => synthesizeFlite(`${WARRANTY} Number ${i}.`, { voice: 'slt' })));
    const used = nodePerformance.eventLoopUtilization(before);
    expect(pcm.every((p) => p.samples.length > 0)).toBe(true);
    expect(used.utilization).toBeLessThan(0.5);
  });

  it('serves an answer\'s first sentence before the next sentences of other answers', async () => {
    const pool = new FlitePool((await sharedFlitePool()).module, 1);
    try {
      const order: string[] = [];
      const job = (name: string, urgent: boolean) =>
        pool.run(['flite', '-voice', 'kal', '-t', name, '-o', '/out.wav'], undefined, urgent).then(() => order.push(name));
      await Promise.all([job('busy', true), job('later one', false), job('later two', false), job('first', true)]);
      expect(order).toEqual(['busy', 'first', 'later one', 'later two']);
    } finally {
      await pool.close();
    }
  });

  it('rejects an aborted request without running it', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(synthesizeFlite(WARRANTY, { signal: controller.signal })).rejects.toThrow('stop');
    expect(new FliteError('x').code).toBe('flite_failed');
  });
});

describe('English voice turns: scripted words in, Flite words out', () => {
  const rt = realtimeFixture({ voice: 'flite' }, 0);

  const connect = () => rt.connect({}, { ready: true });

  it('answers the scripted question from the knowledge base in Flite speech, and marks the turn scripted', async () => {
    const caller = await connect();
    rt.env.ctx.script.set(caller.sessionId, ['How long is the warranty?']);
    await caller.say(await fixture48k('warranty.wav'));
    const question = await caller.waitFor('transcript.final', (e) => e.role === 'user');
    expect(question).toMatchObject({ text: 'How long is the warranty?', scripted: true });
    expect(question.placeholder).toBeUndefined();
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === question.turn_id, 20000);
    expect(done.question).toBe('How long is the warranty?');
    expect(done.answer).toContain('two-year warranty');
    expect(done.interrupted).toBe(false);
    expect(caller.received.loud).toBeGreaterThan(100);
    // The deltas still spell the answer exactly, sentence after sentence.
    expect(caller.of('transcript.delta').filter((e) => e.turn_id === done.turn_id).map((d) => d.delta).join('')).toBe(done.answer);

    const message = rt.env.ctx.store.messages.get(done.message_id)!;
    expect(message.question_metadata).toMatchObject({ input: 'voice', scripted: true });
    // The recorded answer is Flite's speech of each sentence, back to back (the first from its first word: trimLeadIn).
    const expected = await Promise.all(speechSentences(done.answer).map((s) => synthesizeFlite(s.trim())));
    expected[0] = { ...expected[0]!, samples: trimLeadIn(expected[0]!.samples, expected[0]!.sampleRate) };
    const expectedMs = expected.reduce((ms, p) => ms + (p.samples.length / p.sampleRate) * 1000, 0);
    expect(done.output_duration_ms).toBeGreaterThan(expectedMs - 30);
    expect(done.output_duration_ms).toBeLessThan(expectedMs + 30);
    const recorded = rt.env.ctx.store.audio.find((a) => a.session_id === caller.sessionId && a.role === 'assistant');
    expect(recorded).toHaveLength(1);
    const wav = decodeWav(new Uint8Array(readFileSync(recorded[0]!.file)));
    const first = resample(expected[0]!.samples, expected[0]!.sampleRate, wav.sampleRate);
    expect(Array.from(wav.samples.subarray(0, first.length))).toEqual(Array.from(first));
    // The queue is used up: the next utterance gets the placeholder again.
    expect(rt.env.ctx.script.snapshot()).toEqual({ utterances: [], sessions: {} });
  });

  it('without a script keeps the honest placeholder', async () => {
    const caller = await connect();
    await caller.say(await fixture48k('descale.wav'));
    const question = await caller.waitFor('transcript.final', (e) => e.role === 'user');
    expect(question.placeholder).toBe(true);
    expect(question.scripted).toBeUndefined();
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === question.turn_id, 20000);
    expect(rt.env.ctx.store.messages.get(done.message_id)!.question_metadata).not.toHaveProperty('scripted');
  });
});

describe('sentence-by-sentence speech', () => {
  let env: Awaited<ReturnType<typeof makeContext>>;
  let service: RealtimeService;
  let caller: Caller | undefined;
  const calls: Array<{ text: string; at: number }> = [];
  const SLOW_MS = 400;

  /** Opened once the first test hears speech start: its third sentence waits for it (a voice that waited for all three would never start). */
  let speaking: () => void = () => {};
  const speechStarted = new Promise<void>((resolve) => (speaking = resolve));

  beforeAll(async () => {
    env = await makeContext(0);
    const brain: Partial<Brain> = {
      async answer(input) {
        return {
          answer: input.question === 'long'
            ? 'This first sentence is a rather long one, so that it plays for several seconds before the next. Second sentence. Third sentence.'
            : input.question === 'fail' ? 'Fine first. Broken second.' : 'First sentence here. Second one follows. Third and last.',
        };
      },
      async synthesize(input) {
        calls.push({ text: input.text, at: performance.now() });
        if (input.text === 'Third and last.') await speechStarted;
        await new Promise((r) => setTimeout(r, SLOW_MS));
        if (input.text === 'Broken second.') throw new Error('synthesizer broke');
        return synthesizeFormant(input.text);
      },
    };
    service = createRealtimeService(env.ctx, { brain });
  });
  afterAll(async () => {
    caller?.close();
    await service?.close();
    await env?.dispose();
  });

  it('starts speaking after the first sentence, synthesizing the next while one plays', async () => {
    calls.length = 0;
    caller = await Caller.connect((sdp) => service.handleOffer(env.robotId, { type: 'offer', sdp, language: 'en' }));
    await caller.waitFor('session.ready');
    caller.send({ v: 1, type: 'input.text', text: 'Tell me three things.' });
    await caller.waitFor('output.speech_started');
    const callsWhenSpeaking = calls.length;
    speaking();
    const done = await caller.waitFor('turn.completed', () => true, 20000);
    expect(calls.map((c) => c.text)).toEqual(['First sentence here.', 'Second one follows.', 'Third and last.']);
    // Speaking began as soon as sentence 1 was ready, never waiting for sentence 3 (sentence 1 is
    // shorter than the 1.5 s lead, so sentence 2 may already be under way).
    expect(callsWhenSpeaking).toBeLessThanOrEqual(2);
    // Sentence 3's synthesis waited for the speech to start: reaching here at all shows speaking did not wait for it.
    expect(done.first_response_ms).toBeGreaterThanOrEqual(SLOW_MS);
    expect(caller.of('output.speech_stopped')).toEqual([expect.objectContaining({ reason: 'completed' })]);
    expect(caller.of('transcript.delta').map((d) => d.delta).join('')).toBe(done.answer);
  });

  it('never synthesizes the sentences of an answer cut short while its long first sentence plays', async () => {
    calls.length = 0;
    caller!.send({ v: 1, type: 'input.text', text: 'long' });
    const asked = await caller!.waitFor('transcript.final', (e) => e.role === 'user' && e.text === 'long');
    const started = await caller!.waitFor('output.speech_started', (e) => e.turn_id === asked.turn_id);
    await new Promise((r) => setTimeout(r, 300));
    caller!.send({ v: 1, type: 'response.interrupt' });
    const done = await caller!.waitFor('turn.completed', (e) => e.turn_id === started.turn_id, 20000);
    expect(done.interrupted).toBe(true);
    expect(calls.map((c) => c.text)).toEqual(['This first sentence is a rather long one, so that it plays for several seconds before the next.']);
  });

  it('stops speaking and fails the turn when a later sentence cannot be synthesized', async () => {
    caller!.send({ v: 1, type: 'input.text', text: 'fail' });
    const asked = await caller!.waitFor('transcript.final', (e) => e.role === 'user' && e.text === 'fail');
    const error = await caller!.waitFor('error', (e) => e.turn_id === asked.turn_id, 20000);
    expect(error).toMatchObject({ code: 'turn_failed', message: 'synthesizer broke' });
    expect(caller!.of('output.speech_stopped').filter((e) => e.turn_id === asked.turn_id)).toEqual([expect.objectContaining({ reason: 'interrupted' })]);
  });
});
