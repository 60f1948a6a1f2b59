// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rmsToLevel, webAudioMeters } from '../../src/client/levels.js';
import { receiverAmplitude, rememberReceiver } from '../../src/client/receiver-level.js';

// Firefox with no audio output device keeps every AudioContext suspended (measured in Firefox ESR
// 153, test/firefox): the output meter then reads the answer's level from its RTP packets.

const track = () => ({ kind: 'audio' }) as unknown as MediaStreamTrack;
const streamOf = (t: MediaStreamTrack) => ({ getAudioTracks: () => [t] }) as unknown as MediaStream;
const receiver = (sources: Partial<RTCRtpSynchronizationSource>[]) =>
  ({ getSynchronizationSources: () => sources }) as unknown as RTCRtpReceiver;

class SuspendedContext {
  state: AudioContextState = 'suspended';
  resume() { return Promise.resolve(); }
  close() { return Promise.resolve(); }
  createMediaStreamSource() { return { connect() {}, disconnect() {} }; }
  createAnalyser() { return { fftSize: 0, getFloatTimeDomainData: (buf: Float32Array) => buf.fill(0) }; }
}

afterEach(() => vi.unstubAllGlobals());

describe('receiverAmplitude', () => {
  it('is the latest packet\'s level, undefined without a receiver, a packet or a level', () => {
    const t = track();
    const stream = streamOf(t);
    expect(receiverAmplitude(stream)).toBeUndefined();
    rememberReceiver(t, receiver([{ timestamp: 9_990, audioLevel: 0.25 }]));
    expect(receiverAmplitude(stream)).toBe(0.25);
    const a = track();
    rememberReceiver(a, receiver([{ timestamp: 1_000 }]));
    expect(receiverAmplitude(streamOf(a))).toBeUndefined();
    const b = track();
    rememberReceiver(b, receiver([]));
    expect(receiverAmplitude(streamOf(b))).toBeUndefined();
    expect(receiverAmplitude({} as MediaStream)).toBeUndefined();
  });
});

describe('webAudioMeters with a context that never runs', () => {
  it('reads a remote stream from its packets, and a local one as "cannot measure"', () => {
    vi.stubGlobal('AudioContext', SuspendedContext);
    const meters = webAudioMeters()!;
    const remote = track();
    rememberReceiver(remote, receiver([{ timestamp: performance.timeOrigin + performance.now(), audioLevel: 0.1 }]));
    expect(meters.factory(streamOf(remote))!.read()).toBeCloseTo(rmsToLevel(0.1));
    expect(meters.factory(streamOf(track()))!.read()).toBeUndefined();
    meters.close();
  });
});
