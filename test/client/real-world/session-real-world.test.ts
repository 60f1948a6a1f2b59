import { afterEach, describe, expect, it, vi } from 'vitest';
import { VoiceSession, type SessionState, type VoiceSessionError, type VoiceSessionOptions } from '../../../src/client/index.js';
import { FakeClock, ScriptedService, type ScriptedServiceOptions } from '../../../src/testing/index.js';

// Issue 27 on kb-voice/testing's scripted service (Node): text-only calls, a lost microphone,
// network events and resume after reload, with the browser globals they use stubbed.

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A microphone whose tracks can end by themselves, as an unplugged device's do. */
function endableMicrophone() {
  const tracks: Array<EventTarget & { kind: 'audio'; id: string; enabled: boolean; readyState: string; stop(): void }> = [];
  const asked: Array<string | undefined> = [];
  const source = async (deviceId?: string) => {
    asked.push(deviceId);
    const track = Object.assign(new EventTarget(), { kind: 'audio' as const, id: `t${tracks.length + 1}`, enabled: true, readyState: 'live', stop() { this.readyState = 'ended'; } });
    tracks.push(track);
    const list = [track];
    return { getTracks: () => [...list], getAudioTracks: () => [...list], addTrack: (t: typeof track) => void list.push(t), removeTrack: (t: typeof track) => void list.splice(list.indexOf(t), 1) } as unknown as MediaStream;
  };
  return { tracks, asked, source };
}

function setup(service: ScriptedServiceOptions = {}, overrides: Partial<VoiceSessionOptions> = {}) {
  const scripted = new ScriptedService(service);
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, ...overrides });
  const errors: VoiceSessionError[] = [];
  const states: SessionState[] = [];
  session.on('error', (e) => errors.push(e));
  session.on('state', (s) => states.push(s));
  return { scripted, session, errors, states };
}

describe('text-only calls (microphone: false)', () => {
  it('connect without asking for a microphone; typed questions are answered', async () => {
    const { scripted, session } = setup({ answer: () => 'Two years.' }, { microphone: false });
    await session.start();
    expect(scripted.tracks).toEqual([]); // the scripted microphone was never asked
    const turn = new Promise((resolve) => session.once('turn', resolve));
    session.sendText('How long is the warranty?');
    expect(await turn).toMatchObject({ input: 'text', answer: 'Two years.' });
    session.mute(); // nothing to mute: harmless
    await expect(session.setInputDevice('usb')).rejects.toMatchObject({ code: 'not_connected' });
    await session.end();
  });
});

describe('a microphone that ends by itself', () => {
  it('is replaced by the default microphone on the same connection, with a device_lost warning', async () => {
    const mic = endableMicrophone();
    const { scripted, session, errors } = setup({}, { microphone: mic.source });
    const replaced = vi.fn();
    await session.start();
    const transport = (session as unknown as { carrier: { current: { transport: { replaceTrack: (...a: unknown[]) => void } } } }).carrier.current.transport;
    transport.replaceTrack = replaced;
    mic.tracks[0]!.readyState = 'ended';
    mic.tracks[0]!.dispatchEvent(new Event('ended'));
    await vi.waitFor(() => expect(replaced).toHaveBeenCalledTimes(1));
    expect(replaced.mock.calls[0]!.slice(0, 2)).toEqual([mic.tracks[0], mic.tracks[1]]);
    expect(mic.asked).toEqual([undefined, undefined]); // the default device, both times
    expect(errors.map((e) => e.code)).toEqual(['device_lost']);
    expect(session.state.status).toBe('connected');
    expect(scripted.calls).toHaveLength(1); // no new connection
    // The replacement is watched too; a track the session stops itself is not "lost".
    await session.end();
    mic.tracks[1]!.dispatchEvent(new Event('ended'));
    expect(errors).toHaveLength(1);
  });

  it('reports microphone_unavailable (the call goes on) when no microphone can replace it', async () => {
    const mic = endableMicrophone();
    let fail = false;
    const source = async (deviceId?: string) => {
      if (fail) throw Object.assign(new Error('no device'), { name: 'NotFoundError' });
      return mic.source(deviceId);
    };
    const { session, errors } = setup({}, { microphone: source });
    await session.start();
    fail = true;
    mic.tracks[0]!.dispatchEvent(new Event('ended'));
    await vi.waitFor(() => expect(errors.map((e) => e.code)).toEqual(['device_lost', 'microphone_unavailable']));
    expect(session.state.status).toBe('connected');
    await session.end();
  });
});

describe('network events', () => {
  function stubNetwork() {
    const win = new EventTarget();
    const connection = new EventTarget();
    const nav = { onLine: true, connection };
    vi.stubGlobal('window', win);
    vi.stubGlobal('navigator', nav);
    return {
      offline() { nav.onLine = false; win.dispatchEvent(new Event('offline')); },
      online() { nav.onLine = true; win.dispatchEvent(new Event('online')); },
      change() { connection.dispatchEvent(new Event('change')); },
    };
  }

  it('offline: reconnecting with cause offline at once, nothing tried until online, then the call is restored', async () => {
    const net = stubNetwork();
    // On fake time: offline for half the reconnection limit (past it the call ends), longer than
    // any pause before a try (the policy's first pauses are under 2 s), so a try made meanwhile shows
    const clock = new FakeClock();
    const { scripted, session, states } = setup({ clock }, { clock, reconnectTimeoutMs: 20_000 });
    await session.start();
    net.offline();
    expect(session.state).toMatchObject({ status: 'reconnecting', cause: 'offline' });
    await clock.advance(10_000);
    expect(scripted.offers).toHaveLength(1);
    expect(session.state).toMatchObject({ status: 'reconnecting', cause: 'offline' });
    const restored = new Promise<void>((resolve) => session.on('state', (s) => s.status === 'connected' && resolve()));
    net.online();
    // (the restart's check that the link carries again runs on the clock)
    await clock.advance(5_000);
    await restored;
    expect(scripted.offers.map((o) => o.session_id)).toEqual([undefined, 'scripted-session-1']);
    expect(states.filter((s) => s.status === 'reconnecting').every((s) => (s as { cause: string }).cause === 'offline')).toBe(true);
    await session.end();
  });

  it('a navigator.connection change restores the link at once (cause network_change); nothing after end()', async () => {
    const net = stubNetwork();
    const { scripted, session } = setup();
    await session.start();
    net.change();
    expect(session.state).toMatchObject({ status: 'reconnecting', cause: 'network_change' });
    await vi.waitFor(() => expect(session.state.status).toBe('connected'));
    expect(scripted.offers).toHaveLength(2);
    await session.end();
    net.change();
    net.offline();
    expect(session.state.status).toBe('ended');
  });

  it('offline longer than reconnectTimeoutMs ends the call with connection_lost', async () => {
    const net = stubNetwork();
    const { session, errors } = setup({}, { reconnectTimeoutMs: 100 });
    await session.start();
    net.offline();
    await vi.waitFor(() => expect(session.state).toMatchObject({ status: 'ended', reason: 'connection_lost' }));
    expect(errors.at(-1)).toMatchObject({ code: 'connection_lost', message: expect.stringContaining('offline') });
  });
});

describe('resume after reload (resume: true)', () => {
  function stubStorage() {
    const map = new Map<string, string>();
    vi.stubGlobal('sessionStorage', { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), removeItem: (k: string) => void map.delete(k) });
    return map;
  }

  it('keeps the live call under kb-voice:<aiId>, continues it from a new page, and end() clears it', async () => {
    const storage = stubStorage();
    const first = setup({ sessionId: 'sess-A' }, { resume: true });
    await first.session.start();
    expect(JSON.parse(storage.get('kb-voice:robot-1')!)).toMatchObject({ sessionId: 'sess-A' });
    expect(first.session.getSnapshot().resumed).toBe(false);

    // The reloaded page: a new VoiceSession (and service connection) in the same tab.
    const again = setup({ autoReady: false }, { resume: true });
    const started = again.session.start();
    await vi.waitFor(() => expect(again.scripted.call).toBeDefined());
    again.scripted.send({ type: 'session.ready', session_id: 'sess-A', language: 'ja', agent_ready: true, resumed: true });
    await started;
    expect(again.scripted.offers[0]!.session_id).toBe('sess-A');
    expect(again.session.sessionId).toBe('sess-A');
    expect(again.session.getSnapshot().resumed).toBe(true);
    await again.session.end();
    expect(storage.has('kb-voice:robot-1')).toBe(false);
  });

  it('a stored session the service refuses (409: ended too long ago) gives a new session, not a failure', async () => {
    const storage = stubStorage();
    storage.set('kb-voice:robot-1', JSON.stringify({ sessionId: 'old', at: Date.now() }));
    const { scripted, session } = setup({ sessionId: 'fresh' }, { resume: true });
    scripted.failSignaling({ status: 409, detail: 'the session can no longer be continued' });
    await session.start();
    expect(scripted.offers.map((o) => o.session_id)).toEqual(['old', undefined]);
    expect(session.sessionId).toBe('fresh');
    expect(session.getSnapshot().resumed).toBe(false);
    expect(JSON.parse(storage.get('kb-voice:robot-1')!)).toMatchObject({ sessionId: 'fresh' });
    await session.end();
  });

  it('without resume: true nothing is stored or read', async () => {
    const storage = stubStorage();
    storage.set('kb-voice:robot-1', JSON.stringify({ sessionId: 'old', at: Date.now() }));
    const { scripted, session } = setup();
    await session.start();
    expect(scripted.offers[0]!.session_id).toBeUndefined();
    await session.end();
    expect(storage.get('kb-voice:robot-1')).toContain('old');
  });
});
