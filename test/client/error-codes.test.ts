import wrtc from '@roamhq/wrtc';
import { startEmulator } from 'kb-voice-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VoiceSession, type VoiceSessionApi, type VoiceSessionError } from '../../src/client/index.js';
import { createRelay } from '../../src/relay/index.js';
import { FakeMicrophone } from './helpers/microphone.js';

// Precise error codes from real signaling failures (the API client's real errors, through the
// emulator and the relay), where every one used to be `signaling_failed`.

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
let emu: Emulator;
const mic = new FakeMicrophone();

beforeAll(async () => {
  emu = await startEmulator({ port: 0, agentBuildMs: 50 });
});
afterAll(async () => {
  mic.close();
  await emu.close();
});

async function failure(api: VoiceSessionApi, aiId = emu.fixtures.robotId): Promise<VoiceSessionError> {
  const session = new VoiceSession({ aiId, api, wrtc: wrtc as never, microphone: mic.open, levelMeter: () => undefined });
  const errors: VoiceSessionError[] = [];
  session.on('error', (e) => errors.push(e));
  const err = (await session.start().catch((e: unknown) => e)) as VoiceSessionError;
  expect(errors).toEqual([err]); // reported once, as the event and the rejection
  expect(session.state.status).toBe('failed');
  return err;
}

describe('signaling failures have precise codes', () => {
  it('a wrong API key is unauthorized (401), cause kept', async () => {
    const err = await failure(createApiClient({ baseUrl: emu.url, apiKey: 'wrong-key' }));
    expect(err).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((err.cause as { status?: number }).status).toBe(401);
  });

  it('a caller the relay does not authorize is unauthorized', async () => {
    const relay = createRelay({ upstream: emu.url, apiKey: emu.apiKey, robots: '*', authorize: async () => null });
    const err = await failure(createApiClient({ baseUrl: 'http://relay.test/api/voice', fetch: (input, init) => relay.fetch(new Request(input, init)) }));
    expect(err.code).toBe('unauthorized');
  });

  it('an unknown robot is not_found (404)', async () => {
    const err = await failure(createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey }), '00000000-0000-4000-8000-000000000000');
    expect(err).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('429 is rate_limited with the Retry-After delay', async () => {
    const limited = async () => new Response(JSON.stringify({ detail: 'slow down' }), { status: 429, headers: { 'retry-after': '7', 'content-type': 'application/json' } });
    const err = await failure(createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, fetch: limited }));
    expect(err).toMatchObject({ code: 'rate_limited', status: 429, retryAfterMs: 7000 });
  });

  it('a dead upstream behind the relay (502) and an unreachable service are service_unavailable', async () => {
    const relay = createRelay({ upstream: 'http://127.0.0.1:9', apiKey: 'k', robots: '*', authorize: async () => ({ role: 'admin', userIdentifier: 'qa' }) });
    const viaRelay = await failure(createApiClient({ baseUrl: 'http://relay.test/api/voice', fetch: (input, init) => relay.fetch(new Request(input, init)) }));
    expect(viaRelay).toMatchObject({ code: 'service_unavailable', status: 502 });
    const direct = await failure(createApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', retry: 0 }));
    expect(direct.code).toBe('service_unavailable');
  });
});
