import { afterEach, describe, expect, it, vi } from 'vitest';
import { VoiceSession } from '../../../src/client/index.js';
import { FakeClock, ScriptedService } from '../../../src/testing/index.js';

// What runs between start() and `connected` is the time to connected (bench/time-to-connected.mjs):
// work the call does not need to connect waits until it is connected.
describe('the connect path', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('lists the audio devices once connected, not while connecting (enumerateDevices is a browser round trip)', async () => {
    const asked: string[] = [];
    let session: VoiceSession | undefined;
    const enumerateDevices = vi.fn(async () => {
      asked.push(session!.state.status);
      return [{ kind: 'audioinput', deviceId: 'mic', label: 'Mic', groupId: 'g' }] as MediaDeviceInfo[];
    });
    vi.stubGlobal('navigator', { mediaDevices: { enumerateDevices, addEventListener: () => undefined, removeEventListener: () => undefined } });
    const clock = new FakeClock();
    const scripted = new ScriptedService({ clock });
    session = new VoiceSession({ aiId: 'robot-1', ...scripted.sessionOptions });
    await session.start();
    await clock.settle();
    expect(asked).toEqual(['connected']);
    expect(session.getSnapshot().devices?.inputs).toHaveLength(1);
    await session.end();
  });
});
