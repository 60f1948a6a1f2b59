import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { checkCall } from '../../src/check/index.js';
import { startEmulator } from 'kb-voice-emulator';
import { LabRoute } from 'kb-voice-emulator/lab';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { FakeMicrophone } from '../client/helpers/microphone.js';
import { freeLoopbackPort } from '../helpers/free-port.js';

// checkCall against the real emulator over real WebRTC (@roamhq/wrtc on loopback), and through the
// network lab: what a visitor's "Test my setup" does, end to end.

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function emulator(network?: LabRoute): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, host: '127.0.0.1', agentBuildMs: 0, ...(network ? { network } : {}), realtime: { voice: 'builtin' } });
  cleanups.push(() => emu.close());
  return emu;
}

function microphone() {
  const mic = new FakeMicrophone();
  cleanups.push(() => mic.close());
  return mic;
}

describe('checkCall against the emulator', () => {
  it('a test connection on loopback: connected over UDP, measured, good', async () => {
    const emu = await emulator();
    const r = await checkCall({
      api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), aiId: emu.fixtures.robotId, wrtc: wrtc as never, language: 'en',
      microphone: microphone().open, levelMeter: sinkLevelMeter, connection: true, timeoutMs: 30_000,
    });
    expect(r.service).toMatchObject({ grade: 'good', code: 'service_ok' });
    expect(r.network.candidates.host).toBeGreaterThan(0);
    expect(r.connection).toMatchObject({ grade: 'good', code: 'quality_good', path: { protocol: 'udp', relayed: false } });
    expect(r.connection!.rttMs).not.toBeNull();
    expect(r.connection!.mos).toBeGreaterThan(3.6);
    expect(r.overall === 'good' || r.microphone.code === 'microphone_silent').toBe(true);
  }, 60_000);

  it('relay down: the service part is bad and says the relay could not be reached', async () => {
    const port = await freeLoopbackPort(); // a relay that is down
    const r = await checkCall({
      api: createApiClient({ baseUrl: `http://127.0.0.1:${port}/api/voice`, retry: 0 }), aiId: '00000000-0000-4000-8000-000000000000',
      wrtc: wrtc as never, microphone: false, connection: true,
    });
    expect(r.service).toMatchObject({ grade: 'bad', code: 'relay_unreachable' });
    expect(r.service.message).toMatch(/relay/);
    expect(r.connection).toMatchObject({ grade: 'skipped', code: 'service_down' });
    expect(r.overall).toBe('bad');
  }, 30_000);

  it('3g-poor through the network lab: the test call works and is graded warning, with its figures', async () => {
    const emu = await emulator(new LabRoute({ profile: '3g-poor', seed: 5 }));
    const r = await checkCall({
      api: createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), aiId: emu.fixtures.robotId, wrtc: wrtc as never, language: 'en',
      microphone: microphone().open, levelMeter: sinkLevelMeter,
      // a 650 ms round trip losing 6 % can take several DTLS retransmissions to connect on a busy machine
      connection: { sampleMs: 4000 }, timeoutMs: 60_000,
    });
    expect(r.connection).toMatchObject({ grade: 'warning' });
    expect(r.connection!.code).toMatch(/^quality_(poor|fair)$/);
    expect(r.connection!.rttMs).toBeGreaterThan(400);
    // A figure, not necessarily above 0: a 4 s sample reads the loss from the packets received in it and
    // from the service's last receiver report, whose interval (~5 s) can cover little of the window on a
    // busy machine (ci-under-load once measured 0 % here; the grade above comes from RTT and jitter too).
    expect(r.connection!.lossPct).toEqual(expect.any(Number));
    expect(r.connection!.message).toMatch(/round trip \d+ ms, jitter [\d.]+ ms, loss [\d.]+ %, MOS [\d.]+/);
    expect(r.overall).toBe('warning');
  }, 90_000);
});
