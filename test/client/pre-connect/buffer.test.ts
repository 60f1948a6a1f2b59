import { describe, expect, it } from 'vitest';
import { ClientEvent, PRE_CONNECT_CAPABILITY, type ServerEventOf } from '../../../src/schemas/realtime-events.js';
import type { Attempt } from '../../../src/client/attempt.js';
import { CHUNK_BYTES, PreConnectBuffer, type PcmCapture, type PreConnectDeps } from '../../../src/client/pre-connect.js';
import { FakeClock } from '../../../src/testing/index.js';

const RATE = 16000;
const ready = (capabilities?: string[]): ServerEventOf<'session.ready'> => ({
  v: 1, type: 'session.ready', session_id: 's', language: 'en', agent_ready: true, ...(capabilities ? { capabilities } : {}),
});

/** A capture the test drives: `feed(ms, value)` delivers that much audio of one sample value. */
function harness(option: ConstructorParameters<typeof PreConnectBuffer>[0] = true, overrides: Partial<PreConnectDeps> = {}) {
  let deliver: ((samples: Int16Array, rate: number) => void) | undefined;
  let stopped = 0;
  const capture: PcmCapture = (_track, onPcm) => {
    deliver = onPcm;
    return () => void stopped++;
  };
  const state = { open: true, held: [] as boolean[] };
  const clock = new FakeClock();
  const buffer = new PreConnectBuffer(option, {
    clock, open: () => state.open, hold: (on) => state.held.push(on), pushToTalk: false, capture, ...overrides,
  });
  const sent: ClientEvent[] = [];
  const transport = { bufferedAmount: 0 };
  // Attempt.send takes a command (a client event without `v`) and adds the version (realtime-protocol.ts)
  const attempt = { send: (event: Omit<ClientEvent, 'v'>) => (sent.push(ClientEvent.parse({ v: 1, ...event })), 1), transport } as unknown as Attempt;
  const track = { clone: () => ({ stop() {} }) } as unknown as MediaStreamTrack;
  const feed = (ms: number, value: number) => deliver!(new Int16Array((RATE * ms) / 1000).fill(value), RATE);
  const pcm = () => {
    const chunks = sent.filter((e): e is Extract<ClientEvent, { type: 'input.preconnect' }> => e.type === 'input.preconnect');
    return new Int16Array(new Uint8Array(chunks.flatMap((c) => [...Buffer.from(c.audio, 'base64')])).buffer);
  };
  /** Connected: the chunks go out paced on the fake clock; resolves once all are sent. */
  const connect = async () => {
    buffer.connected(attempt);
    await clock.advance(60_000);
  };
  return { buffer, state, sent, attempt, transport, track, feed, pcm, clock, connect, stopped: () => stopped };
}

describe('PreConnectBuffer', () => {
  it('sends what was said before connected, in order and in bounded chunks, paced, where the service announced the capability', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    expect(h.buffer.buffering).toBe(true);
    expect(h.state.held).toEqual([true]); // the live track is silent while the buffer carries the audio
    h.feed(1000, 1);
    h.feed(1000, 2);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    await h.connect();
    const chunks = h.sent.filter((e) => e.type === 'input.preconnect');
    expect(chunks.map((c) => c.seq)).toEqual([...Array(21).keys()]); // 64000 bytes in chunks of 3072
    expect(chunks.map((c) => c.final)).toEqual([...Array(20).fill(false), true]);
    for (const c of chunks) expect(c.audio.length).toBeLessThanOrEqual(32768);
    const pcm = h.pcm();
    expect(pcm.length).toBe(2 * RATE);
    expect(pcm[0]).toBe(1);
    expect(pcm[pcm.length - 1]).toBe(2);
    expect(h.state.held).toEqual([true, false]);
    expect(h.stopped()).toBe(1);
    expect(h.buffer.report()).toEqual({ bufferedMs: 2000, sentMs: 2000, droppedMs: 0 });
  });

  it('keeps at most maxMs, dropping the oldest audio (what is sent stays contiguous with the live audio)', async () => {
    const h = harness({ maxMs: 1500 });
    h.buffer.begin(h.track);
    h.feed(1000, 1);
    h.feed(1000, 2);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    await h.connect();
    const pcm = h.pcm();
    expect(pcm.length).toBe(1.5 * RATE);
    expect(pcm.filter((v) => v === 1).length).toBe(0.5 * RATE); // the newest 500 ms of the first second
    expect(pcm[pcm.length - 1]).toBe(2);
    expect(h.buffer.report()).toEqual({ bufferedMs: 2000, sentMs: 1500, droppedMs: 500 });
  });

  it('buffers nothing while muted (or while push-to-talk is not held)', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    h.state.open = false;
    h.feed(1000, 1);
    h.state.open = true;
    h.feed(500, 2);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    await h.connect();
    const pcm = h.pcm();
    expect(pcm.length).toBe(0.5 * RATE);
    expect(pcm.every((v) => v === 2)).toBe(true);
  });

  it('push-to-talk released before connected: the utterance is committed after its audio', async () => {
    const h = harness(true, { pushToTalk: true });
    h.buffer.begin(h.track);
    h.feed(500, 3);
    h.state.open = false; // released
    h.feed(500, 4);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    await h.connect();
    expect(h.sent.map((e) => e.type)).toEqual([...Array(6).fill('input.preconnect'), 'input.commit']); // 16000 bytes in chunks of 3072
    expect(h.pcm().every((v) => v === 3)).toBe(true);
  });

  it('sends nothing to a service without the capability (OpenAI protocol, older services)', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    h.feed(1000, 1);
    h.buffer.ready(ready());
    await h.connect();
    expect(h.sent).toEqual([]);
    expect(h.state.held).toEqual([true, false]);
    expect(h.buffer.report()).toEqual({ bufferedMs: 1000, sentMs: 0, droppedMs: 0 });
  });

  it('paces the chunks: the first at once, the next after 3072 bytes at 24000 bytes/s; end() stops them', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    h.feed(2000, 1);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    h.buffer.connected(h.attempt);
    expect(h.sent).toHaveLength(1);
    await h.clock.advance(127);
    expect(h.sent).toHaveLength(1);
    await h.clock.advance(2);
    expect(h.sent).toHaveLength(2);
    h.buffer.close();
    await h.clock.advance(60_000);
    expect(h.sent).toHaveLength(2);
    expect(h.buffer.report()!.sentMs).toBe(192);
  });

  // Issue 48, 3g-poor (400 kbit/s, 6 % loss, 650 ms RTT): a fresh data channel's SCTP sends at most
  // its initial congestion window before the first acknowledgement, 4380 bytes (RFC 4960 7.2.1,
  // dcSCTP and usrsctp alike). A bigger first message needs more round trips, and on that path each
  // lost packet one retransmission timeout more: 8192-byte chunks (11 KB messages) arrived 2-3 s
  // after they were sent, after the emulator's 3 s wait for them had given the live audio (which
  // then went ahead of the buffered audio, or, before that was fixed, got the buffer refused).
  it('every chunk message, as the data channel carries it, fits SCTP\'s initial congestion window, so the first crosses in one trip', async () => {
    const INITIAL_WINDOW_BYTES = 4380;
    for (const rate of [8000, 16000, 48000]) {
      const h = harness();
      h.buffer.begin(h.track);
      h.feed(1000, 1000);
      h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
      const wire: number[] = [];
      const send = h.attempt.send.bind(h.attempt);
      // The attempt adds `v`; what crosses is its JSON (realtime-protocol.ts).
      (h.attempt as { send: Attempt['send'] }).send = (event) => (wire.push(JSON.stringify({ v: 1, ...event, sample_rate: rate, seq: 999 }).length), send(event));
      await h.connect();
      expect(wire.length).toBeGreaterThan(1);
      for (const bytes of wire) expect(bytes).toBeLessThanOrEqual(INITIAL_WINDOW_BYTES);
    }
  });

  it('the longest buffer (30 s) at 48 kHz fits the protocol\'s 1000 chunks', () => {
    expect(Math.ceil((30 * 48000 * 2) / CHUNK_BYTES)).toBeLessThanOrEqual(1000);
  });

  it('backpressure: the next chunk waits while the channel still holds more than three', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    h.feed(2000, 1);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    h.buffer.connected(h.attempt);
    h.transport.bufferedAmount = 3 * CHUNK_BYTES + 1; // a slow, lossy uplink has not sent the chunks yet
    await h.clock.advance(5000);
    expect(h.sent).toHaveLength(1);
    h.transport.bufferedAmount = 3 * CHUNK_BYTES;
    await h.clock.advance(100);
    expect(h.sent).toHaveLength(2);
  });

  it('runs once per call: a reconnection sends no pre-connect audio, only its ping', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    h.feed(100, 1);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    await h.connect();
    const count = h.sent.length;
    h.feed(100, 1);
    await h.connect();
    expect(h.sent.slice(count).map((e) => e.type)).toEqual(['ping']);
  });

  // Issue 48: a service that announced pre_connect_audio holds the live audio from session.ready
  // until the client's first message (the emulator: 3 s at most). A client with nothing to send
  // said nothing until its heartbeat's first ping, a tick later, or (heartbeat off) never.
  it('nothing to send (off, muted, a reconnection): a ping at once tells a capable service that no pre-connect audio comes', async () => {
    for (const [option, open] of [[false, true], [true, false]] as const) {
      const h = harness(option);
      h.buffer.begin(h.track);
      h.state.open = open;
      if (option) h.feed(1000, 1); // off: nothing captures
      h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
      h.buffer.connected(h.attempt);
      expect(h.sent).toEqual([{ v: 1, type: 'ping', t: h.clock.now() }]);
      expect(h.state.held).toEqual(option ? [true, false] : []);
    }
    const other = harness(false);
    other.buffer.ready(ready());
    other.buffer.connected(other.attempt);
    expect(other.sent).toEqual([]); // a service without the capability holds nothing: nothing to say
  });

  it('off (false): nothing is captured, the live track is never held, report says null', () => {
    const h = harness(false);
    h.buffer.begin(h.track);
    expect(h.buffer.buffering).toBe(false);
    expect(h.state.held).toEqual([]);
    expect(h.buffer.report()).toBeNull();
  });

  it('a call that ends before connecting releases the capture', async () => {
    const h = harness();
    h.buffer.begin(h.track);
    h.feed(100, 1);
    h.buffer.close();
    expect(h.stopped()).toBe(1);
    expect(h.state.held).toEqual([true, false]);
    await h.connect();
    expect(h.sent).toEqual([]);
  });

  it('bounds maxMs to 30 s', async () => {
    const h = harness({ maxMs: 120_000 });
    h.buffer.begin(h.track);
    for (let i = 0; i < 40; i++) h.feed(1000, 1);
    h.buffer.ready(ready([PRE_CONNECT_CAPABILITY]));
    await h.connect();
    expect(h.buffer.report()).toMatchObject({ sentMs: 30000, droppedMs: 10000 });
  });
});
