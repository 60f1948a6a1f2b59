import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it } from 'vitest';
import { VoiceSession, type VoiceSessionError } from '../../src/client/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';

// Issue 10, defect 4: once the service is gone for good (connections refused), the call ends with
// connection_lost whose cause is that failure, not the timeout of a last attempt started with
// about 1 ms left ("Connection not established within 1 ms").

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('connection_lost names the real cause', () => {
  for (const reconnectTimeoutMs of [1200, 2000]) {
    it(`service gone, reconnectTimeoutMs ${reconnectTimeoutMs}: cause is the refused connection`, async () => {
      const emu = await startTestEmulator({ agentBuildMs: 50 });
      let closed = false;
      cleanups.push(() => (closed ? undefined : emu.close()));
      const mic = new FakeMicrophone();
      const session = new VoiceSession({
        aiId: emu.robotId, api: emu.api, wrtc: wrtc as never,
        microphone: mic.open, levelMeter: sinkLevelMeter, heartbeatIntervalMs: 200, reconnectTimeoutMs,
      });
      cleanups.push(async () => {
        await session.end({ mode: 'immediate' });
        mic.close();
      });
      const errors: VoiceSessionError[] = [];
      session.on('error', (e) => errors.push(e));
      await session.start();
      const ended = new Promise<void>((resolve) => session.on('state', (s) => s.status === 'ended' && resolve()));
      const lostAt = Date.now();
      closed = true;
      await emu.close();
      await ended;
      const lost = errors.find((e) => e.code === 'connection_lost');
      expect(lost).toBeDefined();
      const cause = lost!.cause as VoiceSessionError;
      expect(cause.message).not.toMatch(/not established within/);
      expect(cause.code).toBe('service_unavailable');
      // It still tried for (most of) the time it was given.
      expect(Date.now() - lostAt).toBeGreaterThan(reconnectTimeoutMs - 800);
    });
  }
});
