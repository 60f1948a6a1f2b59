import { afterEach, describe, expect, it } from 'vitest';
import { VoiceSession, type AudioLevels } from '../../src/client/index.js';
import { ScriptedService } from '../../src/testing/index.js';

// Playback and meters that never hang (issue 11, item 4), as Firefox ESR showed them: an
// AudioContext whose resume() never settles and that stays suspended. resumePlayback() must settle
// anyway, and the meters must say "unavailable" (null), not a silent 0.

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
afterEach(() => {
  delete g.AudioContext;
});

function setup() {
  g.AudioContext = StuckAudioContext;
  const scripted = new ScriptedService();
  const session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions, levelMeter: undefined });
  return { scripted, session };
}

const settles = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => 'settled', () => 'settled'), new Promise((r) => setTimeout(() => r('hung'), ms))]);

describe('resumePlayback and level meters', () => {
  it('resumePlayback() plays the element first and settles although the AudioContext never resumes', async () => {
    const { scripted, session } = setup();
    scripted.audio.blocked = true;
    const blocked = new Promise<void>((resolve) => session.once('playbackBlocked', resolve));
    await session.start();
    await blocked;
    expect(session.getSnapshot().playbackBlocked).toBe(true);
    scripted.audio.blocked = false; // the user clicked
    const plays = scripted.audio.plays;
    expect(await settles(session.resumePlayback(), 1500)).toBe('settled');
    expect(scripted.audio.plays).toBe(plays + 1);
    expect(session.getSnapshot().playbackBlocked).toBe(false);
    await session.end();
  });

  it('meters of a suspended AudioContext report null (unavailable), never 0', async () => {
    const { session } = setup();
    const levels: AudioLevels[] = [];
    session.on('level', (l) => levels.push(l));
    await session.start();
    await new Promise((r) => setTimeout(r, 350));
    expect(levels.length).toBeGreaterThan(1);
    expect(levels.every((l) => l.input === null && l.output === null)).toBe(true);
    await session.end();
  });
});
