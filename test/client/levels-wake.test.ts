// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { webAudioMeters } from '../../src/client/levels.js';

// The meters' AudioContext is made when the call connects, outside the Start click: a browser that
// wants a gesture for Web Audio (Firefox) keeps it suspended, and the meters read null for the whole
// call (issue 40: the QA page's meters at 0 in Firefox ESR). The page's next click or key resumes it.

class FakeContext {
  static made: FakeContext[] = [];
  state: AudioContextState = 'suspended';
  resumes = 0;
  /** Whether a resume() now would be allowed (a user gesture is being handled). */
  static gesture = false;
  constructor() {
    FakeContext.made.push(this);
  }
  resume() {
    this.resumes++;
    if (FakeContext.gesture) this.state = 'running';
    return Promise.resolve();
  }
  close() {
    this.state = 'closed';
    return Promise.resolve();
  }
  createMediaStreamSource() {
    return { connect() {}, disconnect() {} };
  }
  createAnalyser() {
    return { fftSize: 0, getFloatTimeDomainData: (buf: Float32Array) => buf.fill(0.5) };
  }
}

afterEach(() => {
  FakeContext.made = [];
  FakeContext.gesture = false;
  vi.unstubAllGlobals();
});

function gesture(type: 'pointerdown' | 'keydown') {
  FakeContext.gesture = true;
  document.body.dispatchEvent(new Event(type, { bubbles: true }));
  FakeContext.gesture = false;
}

describe('level meters in a suspended AudioContext', () => {
  it('read null while suspended, and read again once a click resumed the context', () => {
    vi.stubGlobal('AudioContext', FakeContext);
    const meters = webAudioMeters()!;
    const meter = meters.factory({} as MediaStream)!;
    expect(FakeContext.made).toHaveLength(1);
    expect(meter.read()).toBeUndefined();
    gesture('pointerdown');
    expect(FakeContext.made[0]!.state).toBe('running');
    expect(meter.read()).toBeGreaterThan(0.8);
    meters.close();
  });

  it('listens for one gesture only, and not at all after close()', () => {
    vi.stubGlobal('AudioContext', FakeContext);
    const meters = webAudioMeters()!;
    meters.factory({} as MediaStream);
    meters.factory({} as MediaStream); // a second meter shares the context and its one listener
    const ctx = FakeContext.made[0]!;
    expect(ctx.resumes).toBe(1); // asked once at once
    meters.close();
    gesture('keydown');
    expect(ctx.resumes).toBe(1);
  });
});
