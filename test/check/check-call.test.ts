import { afterEach, describe, expect, it } from 'vitest';
import { checkCall, type CheckCallOptions, type GatheredCandidate } from '../../src/check/index.js';
import type { VoiceSessionApi } from '../../src/client/index.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { fakeStream, fakeTrack, type FakeTrack } from '../../src/testing/fakes.js';

// checkCall on fake time with stand-ins for each platform part: the API (warmup), the microphone
// and its level, and RTCPeerConnection's gathering. Real calls are in check-emulator.test.ts.

const SRFLX = 'candidate:842163049 1 udp 1677729535 203.0.113.7 61002 typ srflx raddr 0.0.0.0 rport 0 generation 0';
const HOST = 'candidate:1467250027 1 udp 2122260223 10.0.0.2 54400 typ host generation 0';

/** A peer connection that gathers `candidates` (then completes unless `hang`), as the browser would after setLocalDescription. */
function fakePeer(candidates: GatheredCandidate[], { hang = false, throws }: { hang?: boolean; throws?: Error } = {}) {
  const made: { config?: RTCConfiguration; closed: boolean }[] = [];
  class Peer {
    onicecandidate: ((e: { candidate: unknown }) => void) | null = null;
    private readonly record: { config?: RTCConfiguration; closed: boolean };
    constructor(config?: RTCConfiguration) {
      if (throws) throw throws;
      this.record = { config, closed: false };
      made.push(this.record);
    }
    createDataChannel() { return {}; }
    async createOffer() { return { type: 'offer', sdp: 'v=0' }; }
    async setLocalDescription() {
      queueMicrotask(() => {
        for (const c of candidates) this.onicecandidate?.({ candidate: { candidate: c.candidate, relayProtocol: c.relayProtocol ?? null } });
        if (!hang) this.onicecandidate?.({ candidate: null });
      });
    }
    close() { this.record.closed = true; }
  }
  return { wrtc: { RTCPeerConnection: Peer } as unknown as CheckCallOptions['wrtc'], made };
}

function api(warmup: () => Promise<{ success: boolean }>): VoiceSessionApi {
  return { realtime: { warmup } } as unknown as VoiceSessionApi;
}

const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
const tracks: FakeTrack[] = [];
function microphone(): () => Promise<MediaStream> {
  return async () => {
    const track = fakeTrack();
    tracks.push(track);
    return fakeStream([track]);
  };
}
const meter = (level: number | undefined) => () => ({ read: () => level, close: () => undefined });

afterEach(() => void tracks.splice(0));

/** Runs a check to its end on fake time (advancing in steps until it settles). */
async function run(clock: FakeClock, options: Omit<CheckCallOptions, 'clock'>) {
  let result: Awaited<ReturnType<typeof checkCall>> | undefined;
  const done = checkCall({ ...options, clock }).then((r) => (result = r));
  for (let i = 0; i < 200 && !result; i++) await clock.advance(100);
  await done;
  return result!;
}

describe('checkCall', () => {
  it('a working setup: every part good, the microphone released afterwards', async () => {
    const clock = new FakeClock();
    const peer = fakePeer([{ candidate: HOST }, { candidate: SRFLX }]);
    const r = await run(clock, { api: api(async () => ({ success: true })), aiId: 'robot', microphone: microphone(), levelMeter: meter(0.4), iceServers: [{ urls: 'stun:stun.example.com' }], wrtc: peer.wrtc });
    expect(r.overall).toBe('good');
    expect(r.microphone).toMatchObject({ grade: 'good', code: 'microphone_ok', peakLevel: 0.4 });
    expect(r.network).toMatchObject({ grade: 'good', code: 'udp_ok', candidates: { host: 1, srflx: 1, relay: 0, relayTcp: 0, udp: 2 } });
    expect(r.service).toMatchObject({ grade: 'good', code: 'service_ok' });
    expect(r.connection).toBeUndefined();
    expect(r.cancelled).toBe(false);
    expect(tracks.every((t) => t.readyState === 'ended')).toBe(true);
    expect(peer.made.every((p) => p.closed)).toBe(true);
    expect(peer.made[0]!.config).toEqual({ iceServers: [{ urls: 'stun:stun.example.com' }] });
  });

  it('microphone denied: bad, named, and the overall grade says so', async () => {
    const denied = async () => { throw Object.assign(new Error('Permission denied'), { name: 'NotAllowedError' }); };
    const r = await run(new FakeClock(), { api: api(async () => ({ success: true })), aiId: 'robot', microphone: denied, wrtc: fakePeer([{ candidate: HOST }]).wrtc });
    expect(r.microphone).toMatchObject({ grade: 'bad', code: 'microphone_denied' });
    expect(r.microphone.message).toMatch(/microphone/i);
    expect(r.overall).toBe('bad');
  });

  it('a microphone that hears only silence for a second: warning', async () => {
    const r = await run(new FakeClock(), { api: api(async () => ({ success: true })), aiId: 'robot', microphone: microphone(), levelMeter: meter(0.01), wrtc: fakePeer([{ candidate: HOST }]).wrtc });
    expect(r.microphone).toMatchObject({ grade: 'warning', code: 'microphone_silent', peakLevel: 0.01 });
    expect(r.overall).toBe('warning');
  });

  it('microphone: false skips that part', async () => {
    const r = await run(new FakeClock(), { api: api(async () => ({ success: true })), aiId: 'robot', microphone: false, wrtc: fakePeer([{ candidate: HOST }]).wrtc });
    expect(r.microphone).toMatchObject({ grade: 'skipped', code: 'no_microphone' });
    expect(r.overall).toBe('good');
  });

  it.each([
    ['no answer at all (relay down)', () => Promise.reject(new TypeError('fetch failed')), 'relay_unreachable'],
    ['401 from the relay', () => Promise.reject(httpError(401)), 'relay_refused'],
    ['404 (unknown robot)', () => Promise.reject(httpError(404)), 'robot_not_found'],
    ['502 (the service behind the relay)', () => Promise.reject(httpError(502)), 'service_unreachable'],
  ] as const)('service: %s is bad and named', async (_, warmup, code) => {
    const r = await run(new FakeClock(), { api: api(warmup), aiId: 'robot', microphone: false, wrtc: fakePeer([{ candidate: HOST }]).wrtc });
    expect(r.service).toMatchObject({ grade: 'bad', code, latencyMs: null });
    expect(r.overall).toBe('bad');
  });

  it('a slow service is a warning with its time', async () => {
    const clock = new FakeClock();
    const r = await run(clock, { api: api(() => new Promise((resolve) => clock.setTimeout(() => resolve({ success: true }), 4000))), aiId: 'robot', microphone: false, wrtc: fakePeer([{ candidate: HOST }]).wrtc });
    expect(r.service).toMatchObject({ grade: 'warning', code: 'service_slow', latencyMs: 4000 });
  });

  it('is bounded: a hanging service and gathering end at timeoutMs, graded, with the microphone released', async () => {
    const clock = new FakeClock();
    const started = clock.now();
    const r = await run(clock, { api: api(() => new Promise(() => undefined)), aiId: 'robot', microphone: microphone(), levelMeter: meter(0.3), wrtc: fakePeer([{ candidate: HOST }], { hang: true }).wrtc, timeoutMs: 3000 });
    expect(r.service).toMatchObject({ grade: 'bad', code: 'check_timeout' });
    // gathering has its own 4 s bound; at 3 s the whole check stops and grades what it has
    expect(r.network.code).toBe('check_timeout');
    expect(r.microphone.grade).toBe('good');
    expect(r.cancelled).toBe(true);
    expect(r.durationMs).toBe(3000);
    expect(clock.now() - started).toBeLessThanOrEqual(3100);
    expect(tracks.every((t) => t.readyState === 'ended')).toBe(true);
  });

  it('cancelled with its signal: resolves at once with cancelled parts, never rejects', async () => {
    const clock = new FakeClock();
    const abort = new AbortController();
    let result: Awaited<ReturnType<typeof checkCall>> | undefined;
    const done = checkCall({ api: api(() => new Promise(() => undefined)), aiId: 'robot', microphone: false, wrtc: fakePeer([], { hang: true }).wrtc, clock, signal: abort.signal }).then((r) => (result = r));
    await clock.advance(200);
    expect(result).toBeUndefined();
    abort.abort();
    await clock.settle();
    await done;
    expect(result).toMatchObject({ cancelled: true, service: { grade: 'skipped', code: 'cancelled' }, network: { grade: 'skipped', code: 'cancelled' } });
    expect(clock.pending).toBe(0);
  });

  it('a test connection is not tried when the service is down', async () => {
    const r = await run(new FakeClock(), { api: api(() => Promise.reject(new TypeError('fetch failed'))), aiId: 'robot', microphone: false, wrtc: fakePeer([{ candidate: HOST }]).wrtc, connection: true });
    expect(r.connection).toMatchObject({ grade: 'skipped', code: 'service_down' });
  });

  it('iceServers the browser refuses: bad, named, no rejection', async () => {
    const r = await run(new FakeClock(), { api: api(async () => ({ success: true })), aiId: 'robot', microphone: false, wrtc: fakePeer([], { throws: new SyntaxError("'stun:' is not a valid URL") }).wrtc });
    expect(r.network).toMatchObject({ grade: 'bad', code: 'ice_servers_invalid' });
  });

  it('options that cannot work throw at once, naming the option and its limits', () => {
    const ok = { api: api(async () => ({ success: true })), aiId: 'robot' };
    expect(() => checkCall({ ...ok, aiId: '' })).toThrow(/aiId/);
    expect(() => checkCall({ ...ok, api: undefined as never })).toThrow(/api/);
    expect(() => checkCall({ ...ok, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => checkCall({ ...ok, timeoutMs: 120_000 })).toThrow(/timeoutMs.*60000/);
  });
});
