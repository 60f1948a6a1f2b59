import { describe, expect, it } from 'vitest';
import { speak } from '../../emulator/src/tts.js';
import { resample } from '../../emulator/src/realtime/pcm.js';
import { PreConnectFeed } from '../../emulator/src/realtime/pre-connect.js';
import { VoiceActivityDetector, VAD_SAMPLE_RATE, type VadEvent } from '../../emulator/src/realtime/vad.js';
import { v1Protocol } from '../../emulator/src/realtime/v1-protocol.js';
import type { ProtocolHost } from '../../emulator/src/realtime/realtime-protocol.js';
import { MAX_PRECONNECT_CHUNK_CHARS } from '../../src/schemas/realtime-events.js';

const b64 = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
const chunk = (seq: number, pcm: Int16Array, final: boolean, rate = VAD_SAMPLE_RATE) => ({ v: 1 as const, type: 'input.preconnect' as const, seq, audio: b64(pcm), sample_rate: rate, final });

describe('input.preconnect on the emulator (v1)', () => {
  function protocol() {
    const sent: Array<Record<string, unknown>> = [];
    const chunks: unknown[] = [];
    let refuse: string | undefined;
    const host = {
      sessionId: 's', robotId: 'r', now: () => 0, sendText: (text: string) => sent.push(JSON.parse(text)), turns: {} as never,
      end: async () => undefined, endUtterance: () => false, configure: () => undefined,
      preConnect: (c: unknown) => (chunks.push(c), refuse),
    } satisfies ProtocolHost;
    const p = v1Protocol({ language: 'en', agentReady: () => true, takeScript: () => undefined })(host);
    return { p, sent, chunks, refuse: (why: string) => (refuse = why) };
  }

  it('announces the capability in session.ready', () => {
    const t = protocol();
    t.p.open();
    expect(t.sent[0]).toMatchObject({ type: 'session.ready', capabilities: ['pre_connect_audio'] });
  });

  it('validates each chunk (bounded size, base64, rate, seq) before it reaches the connection', () => {
    const t = protocol();
    t.p.message(JSON.stringify(chunk(0, new Int16Array(160), true)));
    expect(t.chunks).toHaveLength(1);
    const bad = [
      { ...chunk(0, new Int16Array(0), true), audio: 'A'.repeat(MAX_PRECONNECT_CHUNK_CHARS + 4) },
      { ...chunk(0, new Int16Array(0), true), audio: 'not base64!' },
      { ...chunk(0, new Int16Array(0), true), sample_rate: 4000 },
      { ...chunk(0, new Int16Array(0), true), seq: -1 },
      { ...chunk(0, new Int16Array(0), true), extra: 1 },
    ];
    for (const message of bad) t.p.message(JSON.stringify(message));
    expect(t.chunks).toHaveLength(1);
    expect(t.sent.filter((m) => m.type === 'error' && m.code === 'protocol_error')).toHaveLength(bad.length);
  });

  it('a chunk the connection refuses is a protocol_error naming why', () => {
    const t = protocol();
    t.refuse('input.preconnect after its final chunk');
    t.p.message(JSON.stringify(chunk(0, new Int16Array(160), true)));
    expect(t.sent.at(-1)).toMatchObject({ type: 'error', code: 'protocol_error', message: 'input.preconnect after its final chunk' });
  });
});

describe('PreConnectFeed', () => {
  it('puts the buffered audio ahead of the live audio that arrives meanwhile, once, in order', () => {
    const fed: number[] = [];
    const feed = new PreConnectFeed((s) => fed.push(...s));
    feed.live(new Int16Array(160).fill(9)); // the live track before the chunks: silence on a real client, fed as it came
    expect(feed.chunk(chunk(0, new Int16Array(160).fill(1), false))).toBeUndefined();
    feed.live(new Int16Array(160).fill(3)); // live audio while the chunks arrive: held
    expect(fed.includes(3)).toBe(false);
    expect(feed.chunk(chunk(1, new Int16Array(160).fill(2), true))).toBeUndefined();
    expect(fed.map((v) => v)).toEqual([...Array(160).fill(9), ...Array(160).fill(1), ...Array(160).fill(2), ...Array(160).fill(3)]);
    expect(feed.bufferedWithin(0, 40)).toBe(20); // stream 10..30 ms came from the buffer
    expect(feed.chunk(chunk(2, new Int16Array(160), true))).toMatch(/after its final chunk/);
  });

  it('after session.ready, live audio waits for the first client message: pre-connect audio goes ahead of live audio that overtook it', () => {
    const fed: number[] = [];
    const feed = new PreConnectFeed((s) => fed.push(...s));
    feed.expect();
    feed.live(new Int16Array(160).fill(3000)); // RTP (the caller's voice) that arrived before the first chunk
    expect(fed).toEqual([]);
    feed.chunk(chunk(0, new Int16Array(160).fill(1), true));
    feed.messageSeen();
    expect(fed).toEqual([...Array(160).fill(1), ...Array(160).fill(3000)]);
  });

  // Issue 48: on the lab's congested-wifi (240 ms RTT) the recording of a question said across the
  // connection had a ~200 ms pause at the seam: the silent frames of the client's held track that
  // arrived between session.ready and its first chunk were put after the buffered audio.
  it('the client\'s held (silent) track, held since session.ready, is dropped: the caller\'s live audio follows the buffered audio at once', () => {
    const fed: number[] = [];
    const feed = new PreConnectFeed((s) => fed.push(...s));
    feed.expect();
    for (let i = 0; i < 10; i++) feed.live(new Int16Array(160).fill(i % 2 ? 0 : -20)); // held track: zeros, comfort noise
    feed.chunk(chunk(0, new Int16Array(160).fill(1), false));
    feed.live(new Int16Array(160).fill(7000)); // the caller
    feed.live(new Int16Array(160)); // a pause of the caller's: kept
    feed.chunk(chunk(1, new Int16Array(160).fill(2), true));
    feed.live(new Int16Array(160).fill(8000)); // live again: fed as it comes
    expect(fed).toEqual([...Array(160).fill(1), ...Array(160).fill(2), ...Array(160).fill(7000), ...Array(160).fill(0), ...Array(160).fill(8000)]);
  });

  it('only what came before the first chunk is taken for the held track: later silence may be the caller\'s pause', () => {
    const fed: number[] = [];
    const feed = new PreConnectFeed((s) => fed.push(...s));
    feed.expect();
    feed.live(new Int16Array(160)); // held track
    feed.live(new Int16Array(160).fill(3000)); // the caller's voice, overtaking the chunk (RTP beside the data channel)
    feed.live(new Int16Array(160)); // then a pause of theirs
    feed.chunk(chunk(0, new Int16Array(160).fill(1), false));
    feed.live(new Int16Array(160)); // still a pause (a short one: silence at the seam, as the caller said it)
    feed.chunk(chunk(1, new Int16Array(160).fill(2), true));
    expect(fed).toEqual([...Array(160).fill(1), ...Array(160).fill(2), ...Array(160).fill(3000), ...Array(320).fill(0)]);
  });

  it('a first message that is not pre-connect audio (or the deadline) lets the held live audio through', () => {
    for (const end of ['message', 'deadline'] as const) {
      const fed: number[] = [];
      const feed = new PreConnectFeed((s) => fed.push(...s));
      feed.expect();
      feed.live(new Int16Array(160).fill(3));
      if (end === 'message') feed.messageSeen();
      else feed.release();
      feed.live(new Int16Array(160).fill(4));
      expect(fed).toEqual([...Array(160).fill(3), ...Array(160).fill(4)]);
    }
  });

  it('pre-connect audio that comes after the deadline (a busy client) is still taken, ahead of the live audio that follows it', () => {
    const fed: number[] = [];
    const feed = new PreConnectFeed((s) => fed.push(...s));
    feed.expect();
    feed.live(new Int16Array(160).fill(0)); // the client's held (silent) live track
    feed.release();
    expect(feed.chunk(chunk(0, new Int16Array(160).fill(1), false))).toBeUndefined();
    feed.live(new Int16Array(160).fill(3)); // held again until the final chunk
    expect(feed.chunk(chunk(1, new Int16Array(160).fill(2), true))).toBeUndefined();
    expect(fed).toEqual([...Array(160).fill(0), ...Array(160).fill(1), ...Array(160).fill(2), ...Array(160).fill(3)]);
    expect(feed.chunk(chunk(2, new Int16Array(160), true))).toMatch(/after its final chunk/);
  });

  it('refuses chunks out of order, odd byte counts, and more than 30 s in all', () => {
    const feed = new PreConnectFeed(() => undefined);
    expect(feed.chunk(chunk(1, new Int16Array(16), false))).toMatch(/out of order/);
    expect(feed.chunk({ ...chunk(0, new Int16Array(0), false), audio: Buffer.from([1, 2, 3]).toString('base64') })).toMatch(/whole PCM16/);
    const second = new Int16Array(16000);
    for (let seq = 0; seq < 30; seq++) expect(feed.chunk(chunk(seq, second, false))).toBeUndefined();
    expect(feed.chunk(chunk(30, second, false))).toMatch(/more than 30000 ms/);
  });

  it('the VAD hears one continuous utterance across the buffered and the live audio, and counts its buffered part', async () => {
    const said = await speak('Hi, how long is the warranty on this coffee machine?');
    const speech = resample(said.samples, said.sampleRate, VAD_SAMPLE_RATE);
    const silence = new Int16Array(VAD_SAMPLE_RATE / 2);
    const whole = new Int16Array(silence.length + speech.length + VAD_SAMPLE_RATE);
    whole.set(silence, 0);
    whole.set(speech, silence.length);
    // Buffered: the click's silence and the first 40 % of the question; live: the rest and a second of silence.
    const split = silence.length + Math.round(speech.length * 0.4);
    const vad = await VoiceActivityDetector.create();
    const events: VadEvent[] = [];
    const feed = new PreConnectFeed((s) => events.push(...vad.push(s, 0)));
    const buffered = whole.subarray(0, split);
    const live = whole.subarray(split);
    const CHUNK = 8000;
    const count = Math.ceil(buffered.length / CHUNK);
    for (let seq = 0; seq < count; seq++) {
      feed.chunk(chunk(seq, buffered.subarray(seq * CHUNK, (seq + 1) * CHUNK), seq === count - 1));
      // Live audio racing the chunks is held until the last one.
      if (seq === 0) feed.live(live.subarray(0, 1600));
    }
    for (let at = 1600; at < live.length; at += 160) feed.live(live.subarray(at, at + 160));
    vad.close();
    const stops = events.filter((e): e is Extract<VadEvent, { type: 'stop' }> => e.type === 'stop');
    expect(stops).toHaveLength(1);
    const stop = stops[0]!;
    // The utterance begins before the speech onset (500 ms in): its pre-roll is the click's silence.
    expect(stop.startMs).toBeLessThan(500);
    expect(stop.speechMs).toBeGreaterThan((speech.length / VAD_SAMPLE_RATE) * 1000 * 0.8);
    const buffer = feed.bufferedWithin(stop.startMs, (stop.audio.length * 1000) / VAD_SAMPLE_RATE);
    expect(buffer).toBeGreaterThan(0);
    expect(buffer).toBeLessThan((stop.audio.length * 1000) / VAD_SAMPLE_RATE);
  });
});
