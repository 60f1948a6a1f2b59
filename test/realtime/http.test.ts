import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { decodeWav } from '../../emulator/src/wav.js';
import { Caller, fixture48k } from './helpers.js';

// The realtime service behind the emulator's HTTP signaling, with the API client on the caller side.
describe('realtime through the HTTP emulator', () => {
  let emu: Emulator;
  const callers: Caller[] = [];

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, agentBuildMs: 300, realtime: { voice: 'builtin' } });
  });
  afterAll(async () => {
    for (const c of callers) c.close();
    await emu?.close();
  });

  it('signals over POST /v1/robots/{ai_id}/realtime/sessions, pays no build after warmup, and serves the recorded audio', async () => {
    const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
    const robotId = emu.fixtures.robotId;
    expect(await api.realtime.warmup(robotId, { language: 'en' })).toMatchObject({ success: true });

    const caller = await Caller.connect((sdp) => api.realtime.connect(robotId, { type: 'offer', sdp, language: 'en', session_id: 'relay-minted-1' }));
    callers.push(caller);
    expect(caller.sessionId).toBe('relay-minted-1');
    expect(await caller.waitFor('session.ready')).toMatchObject({ agent_ready: true, session_id: 'relay-minted-1' });

    await caller.say(await fixture48k('warranty.wav'));
    // Caller and service share this process: a stall of it longer than the service's end-of-speech
    // wait (600 ms) puts a real gap into the caller's audio, and the question then arrives as two
    // utterances, the second barging in on the first's answer. The answer to wait for is the one
    // heard whole; every turn is recorded.
    const voice = await caller.waitFor('turn.completed', (e) => !e.interrupted, 15000);
    expect(voice).toMatchObject({ input: 'voice', agent_build_ms: 0, interrupted: false });
    expect(caller.received.loud).toBeGreaterThan(50);
    const turns = caller.events.filter((e) => e.type === 'turn.completed');

    const page = await api.sessions.messages(robotId, { session_id: 'relay-minted-1' });
    expect(page.items.map((m) => m.id).sort()).toEqual(turns.map((t) => t.message_id).sort());
    expect(page.items.find((m) => m.id === voice.message_id)).toMatchObject({ comes_from: 'realtime', status: 'finished' });

    // the question and the answer at least (an answer cut before its first frame has no audio), numbered from 0
    const audio = await api.realtime.audio(robotId, { session_id: 'relay-minted-1' });
    expect(audio.segments.length).toBeGreaterThanOrEqual(2);
    expect(audio.segments.map((s) => s.segment_index)).toEqual([...audio.segments.keys()]);
    for (const segment of audio.segments) {
      const res = await fetch(segment.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/audio\/wav/);
      const wav = decodeWav(new Uint8Array(await res.arrayBuffer()));
      expect(Math.round((wav.samples.length / wav.sampleRate) * 1000)).toBeCloseTo(segment.duration_ms!, -1);
    }

    const usage = await api.realtime.usage(robotId);
    const mine = usage.sessions.find((s) => s.session_id === 'relay-minted-1');
    expect(mine?.input_audio_tokens).toBeGreaterThan(0);
    expect(mine?.output_audio_tokens).toBeGreaterThan(0);
  }, 20000);

  it('answers a bad offer with 422', async () => {
    const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
    await expect(api.realtime.connect(emu.fixtures.robotId, { type: 'offer', sdp: 'v=0\r\n' })).rejects.toMatchObject({ status: 422 });
    // The interruptions option's object form is validated at the edge, limits included.
    for (const interruptions of [{ minSpeechMs: 6000 }, { resumeAfterMs: -1 }, { mode: 'sometimes' }, { minSpeechMs: 500, extra: 1 }]) {
      const res = await fetch(`${emu.url}/v1/robots/${emu.fixtures.robotId}/realtime/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.apiKey}` },
        body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\n', interruptions }),
      });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toContain('interruptions');
    }
  });
});
