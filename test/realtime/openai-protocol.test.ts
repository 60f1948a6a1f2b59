import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createApiClient } from '../../src/api/index.js';
import { ClientSecretStore } from '../../emulator/src/realtime/openai/secrets.js';
import { defaultSessionState } from '../../emulator/src/realtime/openai/session-config.js';
import { fixture48k } from './helpers.js';
import { OaiCaller } from './oai-caller.js';

// The emulator's OpenAI Realtime protocol: client secrets, POST /v1/realtime/calls and the
// oai-events channel, with a real WebRTC caller in Node.
describe('OpenAI realtime protocol (emulator)', () => {
  let emu: Emulator;
  let robotId: string;
  const callers: OaiCaller[] = [];

  const mint = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${emu.url}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const sdpPost = (key: string) => (sdp: string) =>
    fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sdp' }, body: sdp });
  const call = async (post: (sdp: string) => Promise<Response>) => {
    const caller = await OaiCaller.connect(post);
    callers.push(caller);
    return caller;
  };

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, agentBuildMs: 300, realtime: { voice: 'builtin' } });
    robotId = emu.fixtures.robotId;
  });
  afterAll(async () => {
    for (const c of callers) c.close();
    await emu?.close();
  });

  it('mints client secrets for a robot and refuses bad requests with OpenAI error bodies', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await mint({ session: { type: 'realtime', model: robotId } });
    expect(res.status).toBe(200);
    const secret = await res.json();
    expect(secret.value).toMatch(/^ek_/);
    expect(secret.expires_at).toBeGreaterThanOrEqual(before + 600);
    expect(secret.expires_at).toBeLessThanOrEqual(before + 601);
    expect(secret.session).toMatchObject({ type: 'realtime', object: 'realtime.session', model: robotId, audio: { input: { turn_detection: { type: 'server_vad' } } } });

    const short = await (await mint({ expires_after: { anchor: 'created_at', seconds: 30 }, session: { model: robotId } })).json();
    expect(short.expires_at - before).toBeLessThanOrEqual(31);

    const noKey = await fetch(`${emu.url}/v1/realtime/client_secrets`, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error).toMatchObject({ code: 'missing_api_key', type: 'invalid_request_error' });
    // An ephemeral key cannot mint more keys.
    const withEk = await fetch(`${emu.url}/v1/realtime/client_secrets`, { method: 'POST', headers: { authorization: `Bearer ${secret.value}` }, body: JSON.stringify({ session: { model: robotId } }) });
    expect(withEk.status).toBe(401);
    expect((await mint({ session: { model: 'no-such-robot' } })).status).toBe(404);
    expect((await mint({ session: {} })).status).toBe(400);
    expect((await mint({ session: { model: robotId }, expires_after: { seconds: 5 } })).status).toBe(400);
    expect((await mint({ session: { model: robotId, instructions: 'x'.repeat(70 * 1024) } })).status).toBe(413);
    // The session id a minting server may choose (the relay's grants): validated, and never reused.
    const chosen = (id: string) => fetch(`${emu.url}/v1/realtime/client_secrets?session_id=${encodeURIComponent(id)}`, {
      method: 'POST', headers: { authorization: `Bearer ${emu.apiKey}` }, body: JSON.stringify({ session: { model: robotId } }),
    });
    expect((await chosen('bad id/..')).status).toBe(400);
    expect((await chosen(emu.context.store.sessions.all()[0]!.id)).status).toBe(409);
    const tools = await mint({ session: { model: robotId, tools: [{ type: 'function', name: 'f' }] } });
    expect(tools.status).toBe(400);
    expect((await tools.json()).error).toMatchObject({ code: 'unsupported_config', param: 'session.tools' });
  });

  it('secrets expire and stay bound to their robot', () => {
    let now = 1_000_000_000_000;
    const store = new ClientSecretStore(() => now);
    const secret = store.mint({ robotId: 'r1', userIdentifier: 'u1', session: defaultSessionState('s', 'r1'), ttlS: 60 });
    expect(store.check(secret.value)).toMatchObject({ ok: true, secret: { robotId: 'r1', userIdentifier: 'u1' } });
    now += 59_000;
    expect(store.check(secret.value).ok).toBe(true);
    now += 1_000;
    expect(store.check(secret.value)).toEqual({ ok: false, reason: 'expired' });
    expect(store.check('ek_unknown')).toEqual({ ok: false, reason: 'unknown' });
  });

  it('answers a typed question with the response events, the usage recorded for E13, and records the call as a session', async () => {
    const secret = await (await mint({ session: { type: 'realtime', model: robotId, audio: { input: { transcription: { language: 'en' } } } } }, { 'OpenAI-Safety-Identifier': 'user-42' })).json();
    const caller = await call(sdpPost(secret.value));
    expect(caller.callId).toMatch(/^[0-9a-f-]{36}$/);
    const created = await caller.waitFor('session.created');
    expect(created.session).toMatchObject({ id: caller.callId, model: robotId });

    caller.send({ type: 'session.update', session: { type: 'realtime', model: robotId, instructions: 'Be brief.' } });
    expect((await caller.waitFor('session.updated')).session.instructions).toBe('Be brief.');
    caller.send({ type: 'session.update', session: { type: 'realtime', model: 'another-robot' } });
    expect((await caller.waitFor('error')).error).toMatchObject({ code: 'unsupported_config', param: 'session.model' });

    caller.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] } });
    caller.send({ type: 'response.create' });
    const done = await caller.waitFor('response.done', () => true, 20000);
    expect(done.response.status).toBe('completed');
    const transcript = done.response.output[0]!.content[0]!.transcript;
    expect(transcript).toMatch(/two-year warranty/);

    await caller.waitFor('output_audio_buffer.stopped');
    const order = caller.types().filter((t) => !t.startsWith('session.') && t !== 'error' && t !== 'response.output_audio_transcript.delta');
    expect(order).toEqual([
      'conversation.item.added', 'conversation.item.done', 'response.created',
      'response.output_item.added', 'conversation.item.added', 'response.content_part.added', 'output_audio_buffer.started',
      'response.output_audio.done', 'response.output_audio_transcript.done', 'response.content_part.done',
      'response.output_item.done', 'conversation.item.done', 'response.done', 'output_audio_buffer.stopped',
    ]);
    expect(caller.of('response.output_audio_transcript.delta').map((d) => d.delta).join('')).toBe(transcript);
    const [user, assistant] = caller.of('conversation.item.added');
    expect(user!.item).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] });
    expect(assistant!.previous_item_id).toBe(user!.item.id);

    // The call is a session: its message, usage and audio are where v1 sessions' are.
    const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
    const messages = await api.sessions.messages(robotId, { session_id: caller.callId });
    expect(messages.items).toHaveLength(1);
    expect(messages.items[0]).toMatchObject({ question: 'How long is the warranty?', comes_from: 'realtime', user_id: 'user-42' });
    // The first task of the cold robot paid the agent build, as with v1.
    expect((messages.items[0]!.question_metadata as { agent_build_ms: number }).agent_build_ms).toBeGreaterThanOrEqual(250);
    const usage = await api.realtime.usage(robotId);
    const row = usage.sessions.find((s) => s.session_id === caller.callId)!;
    expect(row).toMatchObject({ user_identifier: 'user-42' });
    expect(done.response.usage!.input_tokens).toBe(row.input_tokens);
    expect(done.response.usage!.output_tokens).toBe(row.output_tokens);
    expect(done.response.usage!.output_token_details.audio_tokens).toBeGreaterThan(0);
    const audio = await api.realtime.audio(robotId, { session_id: caller.callId });
    expect(audio.segments.length).toBe(1);
  });

  it('refuses unknown keys, another robot, and an API-key call without a session; allows CORS', async () => {
    const bad = await sdpPost('ek_nope')('v=0');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    const secret = await (await mint({ session: { model: robotId } })).json();
    const form = new FormData();
    form.set('sdp', 'v=0');
    form.set('session', JSON.stringify({ type: 'realtime', model: 'another-robot' }));
    const other = await fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${secret.value}` }, body: form });
    expect(other.status).toBe(403);
    expect((await other.json()).error.code).toBe('client_secret_robot_mismatch');
    const noSession = await sdpPost(emu.apiKey)('v=0');
    expect(noSession.status).toBe(400);
    expect((await noSession.json()).error.param).toBe('session.model');
    const badSdp = await sdpPost(secret.value)('v=0');
    expect(badSdp.status).toBe(400);
    const huge = await sdpPost(secret.value)('v=0\n'.padEnd(300 * 1024, 'a'));
    expect(huge.status).toBe(413);
    const text = await fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${secret.value}`, 'content-type': 'text/plain' }, body: 'v=0' });
    expect(text.status).toBe(415);

    const preflight = await fetch(`${emu.url}/v1/realtime/calls`, {
      method: 'OPTIONS',
      headers: { origin: 'http://page.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-openai-agents-sdk' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-openai-agents-sdk');
    expect(preflight.headers.get('access-control-expose-headers')).toBe('Location');
  });

  it('server VAD: a spoken question is committed, transcription fails honestly, and the answer still comes', async () => {
    const form = (sdp: string) => {
      const f = new FormData();
      f.set('sdp', sdp);
      f.set('session', JSON.stringify({ type: 'realtime', model: robotId, audio: { input: { transcription: { language: 'en' } } } }));
      return fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${emu.apiKey}` }, body: f });
    };
    const caller = await call(form);
    await caller.waitFor('session.created');
    await caller.say(await fixture48k('warranty.wav'));
    const stopped = await caller.waitFor('input_audio_buffer.speech_stopped');
    const started = caller.of('input_audio_buffer.speech_started')[0]!;
    expect(started.item_id).toBe(stopped.item_id);
    expect(await caller.waitFor('input_audio_buffer.committed')).toMatchObject({ item_id: stopped.item_id });
    const failed = await caller.waitFor('conversation.item.input_audio_transcription.failed', () => true, 20000);
    expect(failed).toMatchObject({ item_id: stopped.item_id, error: { code: 'no_recognizer' } });
    expect(caller.of('conversation.item.input_audio_transcription.completed')).toEqual([]);
    const done = await caller.waitFor('response.done', () => true, 20000);
    expect(done.response.status).toBe('completed');
    expect(done.response.usage!.input_token_details.audio_tokens).toBeGreaterThan(0);
    // The user item keeps an empty transcript: no words were invented.
    caller.send({ type: 'conversation.item.retrieve', item_id: stopped.item_id });
    expect((await caller.waitFor('conversation.item.retrieved')).item).toMatchObject({ role: 'user', content: [{ type: 'input_audio', transcript: '' }] });
  });

  it('manual turns: with turn_detection null, nothing happens until commit + response.create', async () => {
    const secret = await (await mint({ session: { model: robotId, audio: { input: { turn_detection: null } } } })).json();
    expect(secret.session.audio.input.turn_detection).toBeNull();
    const caller = await call(sdpPost(secret.value));
    await caller.waitFor('session.created');
    caller.send({ type: 'input_audio_buffer.commit' });
    expect((await caller.waitFor('error')).error.code).toBe('input_audio_buffer_commit_empty');
    caller.send({ type: 'response.create' });
    expect((await caller.waitFor('error', (e) => e.error.code !== 'input_audio_buffer_commit_empty')).error.code).toBe('response_without_input');

    await caller.say(await fixture48k('warranty.wav'));
    expect(caller.of('response.created')).toEqual([]);
    caller.send({ type: 'input_audio_buffer.commit' });
    const committed = await caller.waitFor('input_audio_buffer.committed');
    caller.send({ type: 'response.create' });
    const done = await caller.waitFor('response.done', () => true, 20000);
    expect(done.response.status).toBe('completed');
    expect(caller.of('conversation.item.input_audio_transcription.failed')[0]!.item_id).toBe(committed.item_id);
    // The whole utterance and a whole answer later (no sleep: a VAD would have spoken up by now):
    // no speech was detected and the only response is the one asked for.
    expect(caller.of('input_audio_buffer.speech_started')).toEqual([]);
    expect(caller.of('response.created').map((e) => e.response.id)).toEqual([done.response.id]);
  });

  it('push-to-talk as kb-voice sends it (turn_detection null): commit + response.create right after the speech answers it, no hangover waited', async () => {
    const secret = await (await mint({ session: { model: robotId, audio: { input: { turn_detection: null } } } })).json();
    const caller = await call(sdpPost(secret.value));
    await caller.waitFor('session.created');
    await caller.say(await fixture48k('warranty.wav'));
    // Released: kb-voice's codec sends both at once for input.commit; the utterance is still in the VAD's hangover.
    caller.send({ type: 'input_audio_buffer.commit' });
    caller.send({ type: 'response.create' });
    const committed = await caller.waitFor('input_audio_buffer.committed');
    const done = await caller.waitFor('response.done', () => true, 20000);
    expect(done.response.status).toBe('completed');
    expect(caller.of('error')).toEqual([]);
    expect(caller.of('conversation.item.input_audio_transcription.failed')[0]!.item_id).toBe(committed.item_id);
  });

  it('response.cancel stops the answer: cancelled response, cleared buffer, recorded as interrupted', async () => {
    const secret = await (await mint({ session: { model: robotId } })).json();
    const caller = await call(sdpPost(secret.value));
    await caller.waitFor('session.created');
    caller.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] } });
    caller.send({ type: 'response.create' });
    await caller.waitFor('output_audio_buffer.started', () => true, 20000);
    caller.send({ type: 'response.cancel' });
    caller.send({ type: 'output_audio_buffer.clear' });
    const done = await caller.waitFor('response.done');
    expect(done.response).toMatchObject({ status: 'cancelled', status_details: { reason: 'client_cancelled' } });
    expect(done.response.output[0]!.status).toBe('incomplete');
    expect(caller.of('output_audio_buffer.cleared').length).toBeGreaterThan(0);
    expect(caller.of('output_audio_buffer.stopped')).toEqual([]);
    const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
    const messages = await api.sessions.messages(robotId, { session_id: caller.callId });
    expect(messages.items[0]!.question_metadata).toMatchObject({ interrupted: true });
  });

  it('server VAD barge-in: speaking over the answer cancels it (turn_detected) and the utterance gets its own response', async () => {
    const secret = await (await mint({ session: { model: robotId } })).json();
    const caller = await call(sdpPost(secret.value));
    await caller.waitFor('session.created');
    caller.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] } });
    caller.send({ type: 'response.create' });
    const first = await caller.waitFor('output_audio_buffer.started', () => true, 20000);
    await caller.say(await fixture48k('warranty.wav'));
    const cancelled = await caller.waitFor('response.done', (e) => e.response.id === first.response_id);
    expect(cancelled.response).toMatchObject({ status: 'cancelled', status_details: { reason: 'turn_detected' } });
    expect(caller.of('output_audio_buffer.cleared').map((e) => e.response_id)).toContain(first.response_id);
    const second = await caller.waitFor('response.done', (e) => e.response.id !== first.response_id, 20000);
    expect(second.response.status).toBe('completed');
    expect(caller.of('conversation.item.input_audio_transcription.failed')).toHaveLength(1);
  });

  it('rejects what it does not implement with error events', async () => {
    const secret = await (await mint({ session: { model: robotId } })).json();
    const caller = await call(sdpPost(secret.value));
    await caller.waitFor('session.created');
    caller.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'c', output: '{}' } });
    caller.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: 'data:' }] } });
    caller.send({ type: 'input_audio_buffer.append', audio: 'AAAA' });
    caller.send('not json');
    caller.send({ type: 'made.up' });
    // A marker answered in order after them: every error of the messages above came before it.
    caller.send({ type: 'session.update', session: { type: 'realtime', model: robotId } });
    await caller.waitFor('session.updated');
    expect(caller.of('error').map((e) => e.error.code)).toEqual(['unsupported_item', 'unsupported_content', 'unsupported_event', 'invalid_json', 'invalid_event']);
  });
});

describe('OpenAI realtime protocol: session cap', () => {
  it('a call beyond maxRealtimeSessions gets 503 capacity with Retry-After, like a v1 offer', async () => {
    const emu = await startEmulator({ port: 0, agentBuildMs: 0, maxRealtimeSessions: 1, realtime: { voice: 'builtin' } });
    const callers: OaiCaller[] = [];
    try {
      const post = (sdp: string) => {
        const form = new FormData();
        form.set('sdp', sdp);
        form.set('session', JSON.stringify({ type: 'realtime', model: emu.fixtures.robotId }));
        return fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${emu.apiKey}` }, body: form });
      };
      callers.push(await OaiCaller.connect(post));
      let refused: Response | undefined;
      await expect(OaiCaller.connect(async (sdp) => (refused = await post(sdp)).clone())).rejects.toThrow(/503/);
      expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await refused!.json()).error).toMatchObject({ code: 'capacity', type: 'server_error' });
    } finally {
      for (const c of callers) c.close();
      await emu.close();
    }
  });
});
