import wrtc from '@roamhq/wrtc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createApiClient } from '../../src/api/index.js';
import { openaiProtocol, simplePeerTransport, VoiceSession, type TransportProvider, type Turn, type TranscriptUpdate, type VoiceSessionError } from '../../src/client/index.js';
import { openaiCodec } from '../../src/client/openai/codec.js';
import { createRelay, serveRelay, type RelayServer } from '../../src/relay/index.js';
import { fixture48k } from '../realtime/helpers.js';
import { sinkLevelMeter } from './helpers/level-meter.js';
import { FakeMicrophone } from './helpers/microphone.js';

// VoiceSession speaking the OpenAI Realtime dialect, through the relay (HTTP on loopback) to the
// emulator, over real WebRTC: the same public API as with v1.
describe('VoiceSession with openaiProtocol', () => {
  let emu: Emulator;
  let relay: RelayServer;
  let base: string;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, agentBuildMs: 300, realtime: { voice: 'builtin' } });
    relay = await serveRelay(
      createRelay({ upstream: emu.url, apiKey: emu.apiKey, prefix: '/api/voice', logger: () => undefined, robots: '*', authorize: () => ({ userIdentifier: 'oai-user', role: 'user' }) }),
      { port: 0 },
    );
    base = `${relay.url}/api/voice`;
  });
  afterAll(async () => {
    await relay?.close();
    await emu?.close();
  });

  /** The default transport, counting the answers to the session's liveness pings as they arrive. */
  const countingPongs = () => {
    const inner = simplePeerTransport({ wrtc: wrtc as never });
    let pongs = 0;
    const waiters: Array<[number, () => void]> = [];
    const transport: TransportProvider = {
      ...inner,
      open: (options, events) => inner.open(options, {
        ...events,
        message: (text) => {
          if (text.includes('kbv_ping_')) {
            pongs++;
            for (const [n, wake] of waiters) if (pongs >= n) wake();
          }
          events.message(text);
        },
      }),
    };
    const pongsAfter = (more: number) => new Promise<void>((resolve) => waiters.push([pongs + more, resolve]));
    return { transport, pongsAfter };
  };

  const call = (signaling: 'unified' | 'client_secret') => {
    const mic = new FakeMicrophone();
    const { transport, pongsAfter } = countingPongs();
    const session = new VoiceSession({
      transport,
      aiId: emu.fixtures.robotId,
      api: createApiClient({ baseUrl: base }),
      protocol: openaiProtocol({ relayUrl: base, signaling, ...(signaling === 'client_secret' ? { callsUrl: `${emu.url}/v1/realtime/calls` } : {}) }),
      wrtc: wrtc as never, microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter, heartbeatIntervalMs: 250,
    });
    const errors: VoiceSessionError[] = [];
    const transcripts: TranscriptUpdate[] = [];
    session.on('error', (e) => errors.push(e));
    session.on('transcript', (t) => transcripts.push(t));
    return { session, mic, errors, transcripts, pongsAfter };
  };
  const nextTurn = (session: VoiceSession) => new Promise<Turn>((resolve) => session.once('turn', resolve));

  it('unified interface: a typed question gets a spoken answer stating the warranty, a turn with latency, snapshots and the report', async () => {
    const { session, mic, errors, transcripts, pongsAfter } = call('unified');
    await session.start();
    expect(session.state.status).toBe('connected');
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const turn = nextTurn(session);
    session.sendText('How long is the warranty?');
    const done = await turn;
    expect(done).toMatchObject({ input: 'text', question: 'How long is the warranty?', interrupted: false });
    expect(done.answer).toMatch(/two-year warranty/);
    expect(done.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(done.firstResponseMs).toBeGreaterThan(0);
    expect(transcripts.some((t) => t.role === 'assistant' && !t.final)).toBe(true);
    expect(session.getSnapshot().turns).toHaveLength(1);

    // Heartbeat pings are answered over the data channel: the call stays up (more answered pings
    // than the heartbeat's limit of 4 unanswered ones).
    await pongsAfter(6);
    expect(session.state.status).toBe('connected');
    await session.end();
    mic.close();
    expect(errors).toEqual([]);
    const report = await session.report();
    expect(report.sessionId).toBe(session.sessionId);
    expect(report.audio.length).toBeGreaterThanOrEqual(1);
    expect(report.usage?.turn_count).toBe(1);
  });

  it('client secret: the relay mints the ek_, the browser calls the service; a spoken question without a recognizer is a placeholder, never words', async () => {
    const { session, mic, errors, transcripts } = call('client_secret');
    await session.start();
    const turn = nextTurn(session);
    await mic.play(await fixture48k('warranty.wav'), 48000);
    const done = await turn;
    expect(done.input).toBe('voice');
    const userFinal = transcripts.find((t) => t.role === 'user' && t.final)!;
    expect(userFinal.placeholder).toBe(true);
    expect(done.question).toMatch(/^\[speech [0-9.]+ s — /);
    await session.end();
    mic.close();
    expect(errors).toEqual([]);
  });

  it('codec: OpenAI events become v1 events; a typed question over an answer waits for its response.done', () => {
    let t = 0;
    const codec = openaiCodec(() => (t += 10));
    const feed = (e: object) => codec.decode(JSON.stringify({ event_id: 'e', ...e }));
    expect(feed({ type: 'session.created', session: { id: 'call-1' } })).toEqual([{ v: 1, type: 'session.ready', session_id: 'call-1', language: '', agent_ready: false }]);
    expect(codec.encode({ v: 1, type: 'input.text', text: 'Hi' })).toHaveLength(2);
    feed({ type: 'conversation.item.added', item: { id: 'u1', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] } });
    feed({ type: 'response.created', response: { id: 'r1' } });
    expect(feed({ type: 'output_audio_buffer.started', response_id: 'r1' })).toEqual([{ v: 1, type: 'output.speech_started', turn_id: 1 }]);
    const during = codec.encode({ v: 1, type: 'input.text', text: 'Again' }) as string[];
    expect(during.map((m) => JSON.parse(m).type)).toEqual(['response.cancel', 'output_audio_buffer.clear', 'conversation.item.create']);
    feed({ type: 'output_audio_buffer.cleared', response_id: 'r1' });
    const end = feed({ type: 'response.done', response: { id: 'r1', status: 'cancelled', metadata: { message_id: 'm1' } } }) as readonly { type: string }[];
    expect(end.map((e) => e.type)).toEqual(['turn.completed']);
    expect(end[0]).toMatchObject({ turn_id: 1, interrupted: true, message_id: 'm1' });
    expect(codec.takeReplies().map((m) => JSON.parse(m).type)).toEqual(['response.create']);
    expect(feed({ type: 'error', error: { message: 'no such item', event_id: 'kbv_ping_42' } })).toEqual([{ v: 1, type: 'pong', t: 42 }]);
    expect(codec.decode('nope')).toBeInstanceOf(Error);
  });
});
