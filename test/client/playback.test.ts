import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it } from 'vitest';
import { VoiceSession, type AudioLevels } from '../../src/client/index.js';
import { FakeAudioElement } from '../../src/testing/index.js';
import { FakeServer } from './helpers/fake-server.js';
import { FakeMicrophone } from './helpers/microphone.js';

// Playback and meters that never hang (issue 11, item 4), as Firefox ESR showed them: an
// AudioContext whose resume() never settles and that stays suspended. resumePlayback() must settle
// anyway, and the meters must say "unavailable" (null), not a silent 0. A real WebRTC call (fake
// service peer), only Web Audio and the <audio> element are stand-ins.

/** A Web Audio stand-in that stays suspended forever, as observed in Firefox. */
class StuckAudioContext {
  state: 'suspended' | 'running' | 'closed' = 'suspended';
  resume() {
    return new Promise<void>(() => undefined);
  }
  close() {
    this.state = 'closed';
    return Promise.resolve();
  }
  createMediaStreamSource() {
    return { connect: () => undefined, disconnect: () => undefined };
  }
  createAnalyser() {
    return { fftSize: 512, getFloatTimeDomainData: (buf: Float32Array) => buf.fill(0) };
  }
}

const g = globalThis as { AudioContext?: unknown };
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  delete g.AudioContext;
});

function setup() {
  g.AudioContext = StuckAudioContext;
  const server = new FakeServer();
  const mic = new FakeMicrophone();
  const audio = new FakeAudioElement();
  const session = new VoiceSession({
    aiId: 'robot-1', api: server.api, wrtc: wrtc as never, microphone: mic.open, audioElement: audio as unknown as HTMLAudioElement,
  });
  cleanups.push(async () => {
    await session.end({ mode: 'immediate' });
    server.close();
    mic.close();
  });
  return { session, audio };
}

const settles = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => 'settled', () => 'settled'), new Promise((r) => setTimeout(() => r('hung'), ms))]);

describe('resumePlayback and level meters', () => {
  it('resumePlayback() plays the element and settles although the AudioContext never resumes', async () => {
    const { session, audio } = setup();
    audio.blocked = true;
    const blocked = new Promise<void>((resolve) => session.once('playbackBlocked', resolve));
    await session.start();
    await blocked;
    audio.blocked = false; // the user clicked
    const plays = audio.plays;
    expect(await settles(session.resumePlayback(), 2000)).toBe('settled');
    expect(audio.plays).toBe(plays + 1);
  });

  it('meters of a suspended AudioContext report null (unavailable), never 0', async () => {
    const { session } = setup();
    const levels: AudioLevels[] = [];
    session.on('level', (l) => levels.push(l));
    const twoLevels = new Promise<void>((resolve) => session.on('level', () => levels.length >= 2 && resolve()));
    await session.start();
    await twoLevels;
    expect(levels.length).toBeGreaterThan(1);
    expect(levels.every((l) => l.input === null && l.output === null)).toBe(true);
  });
});
