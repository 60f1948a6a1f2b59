import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import wrtc from '@roamhq/wrtc';
import { describe, expect, it } from 'vitest';
import { VoiceSession, type Turn } from '../../src/client/index.js';
import { FakeMicrophone, FakeMicrophoneError, MAX_SCRIPT_UTTERANCES } from 'kb-voice-emulator';
import { sinkLevelMeter } from '../client/helpers/level-meter.js';
import { ONE_QUESTION_REALTIME, useEmulator, startTestEmulator } from '../helpers/emulator.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'audio');

// Spoken questions must stay one turn on a starved CPU (ONE_QUESTION_REALTIME says why).
const t = useEmulator({ agentBuildMs: 0, realtime: ONE_QUESTION_REALTIME });

const put = (body: unknown) => t.raw('PUT', '/_emulator/script', { key: null, body });

describe('PUT/GET /_emulator/script', () => {
  it('replaces the queue of a session or the emulator-wide one, and reset clears both', async () => {
    expect(await (await t.raw('GET', '/_emulator/script', { key: null })).json()).toEqual({ utterances: [], sessions: {} });
    expect(await (await put({ utterances: ['  How long is the warranty? '] })).json()).toEqual({ utterances: ['How long is the warranty?'], sessions: {} });
    const res = await put({ session_id: 's-1', utterances: ['How do I descale the kettle?', 'Thanks.'] });
    expect(await res.json()).toEqual({ utterances: ['How long is the warranty?'], sessions: { 's-1': ['How do I descale the kettle?', 'Thanks.'] } });
    // The session's own queue first, then the shared one.
    const queue = t.emu.context.script;
    expect([queue.take('s-1'), queue.take('s-1'), queue.take('s-1'), queue.take('s-1')]).toEqual(['How do I descale the kettle?', 'Thanks.', 'How long is the warranty?', undefined]);
    await put({ session_id: 's-2', utterances: ['x'] });
    await put({ session_id: 's-2', utterances: [] });
    await put({ utterances: ['y'] });
    expect(queue.snapshot()).toEqual({ utterances: ['y'], sessions: {} });
    await t.raw('POST', '/_emulator/reset', { key: null });
    expect(queue.snapshot()).toEqual({ utterances: [], sessions: {} });
  });

  it('rejects bad bodies with the 422 shape and changes nothing', async () => {
    await put({ utterances: ['kept'] });
    const cases: Array<[unknown, unknown[]]> = [
      [{}, ['body', 'utterances']],
      [{ utterances: ['  '] }, ['body', 'utterances', 0]],
      [{ utterances: ['x'.repeat(4001)] }, ['body', 'utterances', 0]],
      [{ utterances: Array(MAX_SCRIPT_UTTERANCES + 1).fill('q') }, ['body', 'utterances']],
      [{ utterances: ['q'], session_id: '' }, ['body', 'session_id']],
      [{ utterances: ['q'], robot_id: 'r' }, ['body', 'robot_id']],
    ];
    for (const [body, loc] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect((await res.json()).detail[0].loc).toEqual(loc);
    }
    expect((await put('{')).status).toBe(422);
    expect(t.emu.context.script.snapshot().utterances).toEqual(['kept']);
    await put({ utterances: [] });
  });

  it('answers loopback callers only', async () => {
    const env = { incoming: { socket: { remoteAddress: '10.0.0.7' } }, outgoing: {} };
    const res = await t.emu.app.request('/_emulator/script', { method: 'PUT', body: JSON.stringify({ utterances: ['x'] }) }, env);
    expect(res.status).toBe(403);
    expect(t.emu.context.script.snapshot().utterances).toEqual([]);
  });
});

describe('FakeMicrophone.playWav(wav, { transcript })', () => {
  it('makes a Node VoiceSession turn answer the scripted words, marked scripted', async () => {
    const mic = new FakeMicrophone({ emulatorUrl: t.emu.url });
    const session = new VoiceSession({ aiId: t.robotId, api: t.api, wrtc: wrtc as never, microphone: mic.open, language: 'en', levelMeter: sinkLevelMeter });
    try {
      await session.start();
      const turn = new Promise<Turn>((resolve) => session.once('turn', resolve));
      await mic.playWav(readFileSync(join(FIXTURES, 'warranty.wav')), { transcript: 'How long is the warranty?', sessionId: session.sessionId! });
      const done = await turn;
      expect(done).toMatchObject({ input: 'voice', question: 'How long is the warranty?', scripted: true, interrupted: false });
      expect(done.answer).toContain('two-year warranty');
      expect(done.firstResponseMs).toBeGreaterThan(0);
    } finally {
      await session.end({ mode: 'immediate' });
      mic.close();
    }
  });

  it('settles scripted clips still waiting when the microphone closes, without scripting them', async () => {
    const mic = new FakeMicrophone({ emulatorUrl: t.emu.url });
    const wav = readFileSync(join(FIXTURES, 'warranty.wav'));
    const first = mic.playWav(wav);
    const second = mic.playWav(wav, { transcript: 'never queued' });
    mic.close();
    await Promise.all([first, second]);
    expect(t.emu.context.script.snapshot()).toEqual({ utterances: [], sessions: {} });
  });

  it('needs the emulator URL for a transcript', async () => {
    const mic = new FakeMicrophone();
    try {
      await expect(mic.playWav(readFileSync(join(FIXTURES, 'warranty.wav')), { transcript: 'Hi' })).rejects.toBeInstanceOf(FakeMicrophoneError);
    } finally {
      mic.close();
    }
  });
});
