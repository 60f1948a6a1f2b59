import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeWav } from '../../emulator/src/wav.js';
import { fixture48k, realtimeFixture } from './helpers.js';

// One cold robot: the first voice turn pays the agent build, a reconnection to the same session
// continues it and pays nothing.
describe('realtime voice turn over WebRTC', () => {
  const rt = realtimeFixture({ voice: 'builtin' }, 300);
  const connect = (body: { session_id?: string; language?: string } = {}) => rt.connect({ user_identifier: 'tester', ...body });

  let sessionId = '';

  it('hears a spoken question, answers it with speech, and records the turn (cold agent)', async () => {
    const caller = await connect();
    sessionId = caller.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const ready = await caller.waitFor('session.ready');
    expect(ready).toMatchObject({ session_id: sessionId, language: 'en', agent_ready: false });
    expect(rt.env.ctx.store.sessions.get(sessionId)).toMatchObject({ robot_id: rt.env.robotId, user_identifier: 'tester', language: 'en' });

    const speech = await fixture48k('boil-time.wav'); // 3.7 s with ~2.9 s of speech
    await caller.say(speech);
    const started = await caller.waitFor('input.speech_started');
    const stopped = await caller.waitFor('input.speech_stopped');
    expect(started.turn_id).toBe(1);
    expect(stopped.turn_id).toBe(1);
    expect(stopped.duration_ms).toBeGreaterThan(2000);
    expect(stopped.duration_ms).toBeLessThan(3600);

    const question = await caller.waitFor('transcript.final', (e) => e.role === 'user');
    expect(question.placeholder).toBe(true);
    expect(question.text).toMatch(/^\[speech \d+\.\d s — no recognizer configured\]$/);
    expect(question.text).toContain(`${(stopped.duration_ms / 1000).toFixed(1)} s`);

    await caller.waitFor('output.speech_started', (e) => e.turn_id === 1);
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === 1, 20000);
    if (process.env.RT_DEBUG) console.log(JSON.stringify(done), caller.received, caller.events.map((e) => e.type).join(","));
    expect(done).toMatchObject({ input: 'voice', question: question.text, interrupted: false });
    expect(done.answer).toMatch(/no speech recognizer is configured/i);
    expect(done.answer).toContain('Aozora AK-3 Smart Kettle FAQ');
    expect(done.agent_build_ms).toBeGreaterThanOrEqual(290);
    expect(done.first_response_ms).toBeGreaterThanOrEqual(done.agent_build_ms!);
    expect(done.input_duration_ms).toBe(stopped.duration_ms);
    expect(done.output_duration_ms).toBeGreaterThan(2000);
    expect(caller.of('output.speech_stopped')).toEqual([expect.objectContaining({ turn_id: 1, reason: 'completed' })]);
    // The deltas are the answer, streamed in order while it was spoken.
    const deltas = caller.of('transcript.delta').filter((e) => e.turn_id === 1);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.delta).join('')).toBe(done.answer);
    expect(caller.events.findIndex((e) => e.type === 'transcript.delta')).toBeLessThan(caller.events.findIndex((e) => e.type === 'output.speech_stopped'));
    // The caller heard the answer.
    expect(caller.received.loud).toBeGreaterThan(100);

    // Records: message, usage, two audio segments.
    const message = rt.env.ctx.store.messages.get(done.message_id)!;
    expect(message).toMatchObject({
      session_id: sessionId, question: question.text, answer: done.answer, status: 'finished', comes_from: 'realtime', model: 'gpt-realtime',
    });
    expect(message.first_response_time).toBeCloseTo(done.first_response_ms! / 1000, 2);
    const usage = rt.env.ctx.store.usage.find((u) => u.message_id === done.message_id);
    expect(usage).toHaveLength(1);
    expect(usage[0]!.input_audio_tokens).toBe(Math.round((stopped.duration_ms / 1000) * 10));
    expect(usage[0]!.output_audio_tokens).toBe(Math.round((done.output_duration_ms / 1000) * 20));
    expect(message.total_tokens).toBe(usage[0]!.input_text_tokens + usage[0]!.input_audio_tokens + usage[0]!.output_text_tokens + usage[0]!.output_audio_tokens);
    const audio = rt.env.ctx.store.audio.find((a) => a.session_id === sessionId).sort((a, b) => a.segment_index - b.segment_index);
    expect(audio.map((a) => [a.segment_index, a.role])).toEqual([[0, 'user'], [1, 'assistant']]);
    for (const a of audio) {
      expect(existsSync(a.file)).toBe(true);
      const wav = decodeWav(readFileSync(a.file));
      expect(wav.channels).toBe(1);
      expect(Math.abs((wav.samples.length / wav.sampleRate) * 1000 - a.duration_ms)).toBeLessThan(2);
    }
    expect(audio[0]!.duration_ms).toBeGreaterThan(stopped.duration_ms);
    expect(audio[1]!.duration_ms).toBeCloseTo(done.output_duration_ms, -1);

    caller.close();
    await expect.poll(() => rt.env.ctx.store.sessions.get(sessionId)!.duration_ms, { timeout: 5000 }).toBeGreaterThan(5000);
  }, 25000);

  it('continues the session on reconnection with a warm agent, and answers typed questions from the dataset', async () => {
    const caller = await connect({ session_id: sessionId });
    expect(caller.sessionId).toBe(sessionId);
    const ready = await caller.waitFor('session.ready');
    expect(ready.agent_ready).toBe(true);

    caller.send({ v: 1, type: 'input.text', text: 'How long is the warranty?' });
    const user = await caller.waitFor('transcript.final', (e) => e.role === 'user');
    expect(user).toMatchObject({ turn_id: 2, text: 'How long is the warranty?' });
    expect(user.placeholder).toBeUndefined();
    await caller.waitFor('transcript.delta', (e) => e.turn_id === 2);
    caller.send({ v: 1, type: 'response.interrupt' });
    const done = await caller.waitFor('turn.completed', (e) => e.turn_id === 2);
    expect(done).toMatchObject({ input: 'text', interrupted: true, agent_build_ms: 0, input_duration_ms: 0 });
    expect(done.answer).toMatch(/two-year warranty/);
    expect(caller.of('output.speech_stopped')).toEqual([expect.objectContaining({ turn_id: 2, reason: 'interrupted' })]);
    expect(done.output_duration_ms).toBeGreaterThan(0);
    expect(rt.env.ctx.store.messages.get(done.message_id)).toMatchObject({ session_id: sessionId, history_conversation_count: 1 });
    const segments = rt.env.ctx.store.audio.find((a) => a.session_id === sessionId).map((a) => a.segment_index).sort();
    expect(segments).toEqual([0, 1, 2]);
    expect(rt.env.ctx.store.sessions.find((s) => s.robot_id === rt.env.robotId && s.id === sessionId)).toHaveLength(1);
  }, 15000);
});
