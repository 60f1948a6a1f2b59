import { afterEach, describe, expect, it, vi } from 'vitest';
import { VoiceSession } from '../../../src/client/index.js';
import { webAudioCapture } from '../../../src/client/pcm-capture.js';
import { PRE_CONNECT_CAPABILITY } from '../../../src/schemas/realtime-events.js';
import { FakeClock, ScriptedService } from '../../../src/testing/index.js';

// One AudioContext per call, made inside start() while the microphone opens: the pre-connect
// capture records through the meters' context instead of making a second one on the way to the offer
// (bench 1: each creation is 1.5-3 ms of main-thread work, on the connection path before), and a
// context made within the Start click's call stack starts running where a browser wants a gesture.

class FakeContext {
  static made: FakeContext[] = [];
  state: AudioContextState = 'suspended';
  sampleRate = 48000;
  destination = {};
  closed = false;
  processors: { onaudioprocess: ((e: unknown) => void) | null }[] = [];
  constructor() {
    FakeContext.made.push(this);
  }
  resume() {
    this.state = 'running';
    return Promise.resolve();
  }
  close() {
    this.closed = true;
    this.state = 'closed';
    return Promise.resolve();
  }
  createMediaStreamSource() {
    return { connect() {}, disconnect() {} };
  }
  createScriptProcessor() {
    const node = { onaudioprocess: null, connect() {}, disconnect() {} };
    this.processors.push(node);
    return node;
  }
  createAnalyser() {
    return { fftSize: 0, getFloatTimeDomainData: (buf: Float32Array) => buf.fill(0) };
  }
}

class FakeStream {
  constructor(readonly tracks: unknown[] = []) {}
}

afterEach(() => {
  FakeContext.made = [];
  vi.unstubAllGlobals();
});

describe('the pre-connect capture and the call AudioContext', () => {
  it('records through a shared context and leaves it open; without one it makes and closes its own', () => {
    vi.stubGlobal('AudioContext', FakeContext);
    vi.stubGlobal('MediaStream', FakeStream);
    const shared = new FakeContext();
    const stop = webAudioCapture(() => shared as unknown as AudioContext)!({} as MediaStreamTrack, () => {});
    expect(FakeContext.made).toEqual([shared]);
    expect(shared.processors).toHaveLength(1);
    stop();
    expect(shared.closed).toBe(false);

    const stopOwn = webAudioCapture()!({} as MediaStreamTrack, () => {});
    expect(FakeContext.made).toHaveLength(2);
    stopOwn();
    expect(FakeContext.made[1]!.closed).toBe(true);
  });

  it('VoiceSession makes one context, within start() itself, for the capture and the meters; closed when the call ends', async () => {
    vi.stubGlobal('AudioContext', FakeContext);
    vi.stubGlobal('MediaStream', FakeStream);
    const clock = new FakeClock();
    const scripted = new ScriptedService({ clock, autoReady: false });
    const { levelMeter: _none, ...options } = scripted.sessionOptions;
    const session = new VoiceSession({ aiId: 'robot-1', ...options, language: 'en' });
    const started = session.start();
    // Made before start() returned: inside the caller's call stack, before the microphone resolved.
    expect(FakeContext.made).toHaveLength(1);
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    expect(session.state.status).toBe('connecting');
    expect(FakeContext.made[0]!.processors).toHaveLength(1); // the capture records through it
    scripted.send({ type: 'session.ready', session_id: session.sessionId!, language: 'en', agent_ready: true, capabilities: [PRE_CONNECT_CAPABILITY] });
    await started;
    expect(session.state.status).toBe('connected');
    expect(FakeContext.made).toHaveLength(1); // the meters took the same one
    await session.end();
    expect(FakeContext.made[0]!.closed).toBe(true);
  });
});
