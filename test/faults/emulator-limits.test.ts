import { afterEach, describe, expect, it } from 'vitest';
import wrtc from '@roamhq/wrtc';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession } from '../../src/client/index.js';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REALTIME_SESSIONS, startEmulator, type Emulator, type EmulatorOptions } from 'kb-voice-emulator';
import { Caller } from '../realtime/helpers.js';
import { spawnEmulator } from './helpers/emulator-process.js';

// Issue 10, emulator limits: a JSON body cap (413 like the relay) and a cap on concurrent realtime
// sessions (503 with Retry-After instead of slowing every caller down).

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function emulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, agentBuildMs: 50, realtime: { voice: 'builtin' }, ...options });
  cleanups.push(() => emu.close());
  return emu;
}

/** A JSON body of exactly `bytes` bytes: `{"text":"xxxx…"}`. */
const jsonOf = (bytes: number) => `{"text":"${'x'.repeat(bytes - 11)}"}`;

/** A request body streamed in 64 KiB chunks without a Content-Length (chunked transfer encoding). */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(65_536).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const n = Math.min(chunk.length, bytes - sent);
      controller.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
}

describe('emulator JSON body cap', () => {
  it('defaults to 1 MiB', () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1_048_576);
  });

  it('answers 413 { detail } above the cap, declared or streamed, and accepts a body at the cap', async () => {
    const emu = await emulator({ maxBodyBytes: 4096 });
    const post = (body: BodyInit, extra: Record<string, string> = {}) =>
      fetch(`${emu.url}/pdf/highlight`, { method: 'POST', headers: { 'content-type': 'application/json', ...extra }, body, duplex: 'half' } as RequestInit);

    const declared = await post(jsonOf(4097));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ detail: 'Request body exceeds 4096 bytes' });

    const chunked = await post(streamed(1_000_000));
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ detail: 'Request body exceeds 4096 bytes' });

    // At the cap the request reaches validation (422 for this made-up body, not 413).
    const atCap = await post(jsonOf(4096));
    expect(atCap.status).toBe(422);
  });

  it('refuses 100 MB on the default cap without reading it all', async () => {
    const emu = await emulator();
    const started = Date.now();
    const res = await fetch(`${emu.url}/v1/robots/${emu.fixtures.robotId}/realtime/warmup`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.apiKey}` },
      body: streamed(100 * 1024 * 1024), duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: `Request body exceeds ${DEFAULT_MAX_BODY_BYTES} bytes` });
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('is set from the command line: kb-voice-emulator --max-body-bytes', async () => {
    const p = await spawnEmulator({ args: ['--max-body-bytes', '100'] });
    cleanups.push(() => p.stop());
    const post = (path: string, body: string) =>
      fetch(`${p.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer kbv-emulator-key' }, body });
    const big = await post('/pdf/highlight', jsonOf(101));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ detail: 'Request body exceeds 100 bytes' });
    expect((await post('/pdf/highlight', jsonOf(100))).status).toBe(422);
  }, 30_000);

  it('is validated when the emulator starts', async () => {
    await expect(startEmulator({ port: 0, maxBodyBytes: 0 })).rejects.toThrow(/maxBodyBytes/);
    await expect(startEmulator({ port: 0, maxRealtimeSessions: 1.5 })).rejects.toThrow(/maxRealtimeSessions/);
  });
});

describe('emulator realtime session cap', () => {
  it('defaults to 64', () => {
    expect(DEFAULT_MAX_REALTIME_SESSIONS).toBe(64);
  });

  it('answers 503 with Retry-After beyond the cap, continues a live session, and admits again once one ends', async () => {
    const emu = await emulator({ maxRealtimeSessions: 2 });
    const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, retry: 0 });
    const robotId = emu.fixtures.robotId;
    const connect = async (session_id?: string) => {
      const caller = await Caller.connect((sdp) => api.realtime.connect(robotId, { type: 'offer', sdp, language: 'en', ...(session_id ? { session_id } : {}) }));
      cleanups.push(() => caller.close());
      await caller.waitFor('session.ready');
      return caller;
    };
    const a = await connect();
    await connect();

    // Refused before any peer is made: the offer's SDP is not even looked at.
    const refused = await fetch(`${emu.url}/v1/robots/${robotId}/realtime/sessions`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.apiKey}` },
      body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n' }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ detail: 'The emulator already runs 2 realtime sessions (maxRealtimeSessions); retry later' });

    // A reconnection of a live session replaces it: not refused at the cap.
    const again = await connect(a.sessionId);
    expect(await again.waitFor('session.ready')).toMatchObject({ session_id: a.sessionId, resumed: true });

    // One call ends: a new one is admitted.
    again.send({ v: 1, type: 'session.end' });
    // The emulator frees the slot (Connection.close() -> onClosed) before its peer's close can
    // reach the caller: once the caller saw it, the slot is free. No wait.
    await again.closedByPeer();
    const next = await connect();
    expect(next.sessionId).not.toBe(a.sessionId);
  }, 30_000);

  it('VoiceSession.start() against a full emulator fails with service_unavailable (503)', async () => {
    const emu = await emulator({ maxRealtimeSessions: 1 });
    const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, retry: 0 });
    const first = await Caller.connect((sdp) => api.realtime.connect(emu.fixtures.robotId, { type: 'offer', sdp, language: 'en' }));
    cleanups.push(() => first.close());
    await first.waitFor('session.ready');

    const mic = new FakeMicrophone();
    const session = new VoiceSession({ aiId: emu.fixtures.robotId, api, wrtc: wrtc as never, microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter });
    cleanups.push(async () => {
      await session.end({ mode: 'immediate' });
      mic.close();
    });
    await expect(session.start()).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
  }, 30_000);
});
