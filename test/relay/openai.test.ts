import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { createRelay, type Relay, type RelayCaller } from '../../src/relay/index.js';
import { OaiCaller } from '../realtime/oai-caller.js';

// The relay's OpenAI-dialect routes against the real emulator: minting ek_ for the caller and the
// unified calls interface, scoped to the caller like v1 sessions.
const P = '/api/voice';

describe('relay: OpenAI-compatible realtime routes', () => {
  let emu: Emulator;
  let relay: Relay;
  let robotId: string;
  const callers: OaiCaller[] = [];
  const authorize = (req: Request): RelayCaller | null => {
    const user = req.headers.get('x-test-user');
    return user ? { userIdentifier: user, role: user === 'admin' ? 'admin' : 'user' } : null;
  };
  const ask = (user: string, path: string, init: RequestInit = {}) =>
    relay.fetch(new Request(`http://relay.test${P}/v1/robots/${robotId}${path}`, { ...init, headers: { 'x-test-user': user, ...(init.headers as Record<string, string>) } }));
  const mint = (user: string, body: unknown = {}) => ask(user, '/realtime/client_secrets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, agentBuildMs: 200, realtime: { voice: 'builtin' } });
    robotId = emu.fixtures.robotId;
    relay = createRelay({ upstream: emu.url, apiKey: emu.apiKey, prefix: P, robots: '*', authorize, maxBodyBytes: 32 * 1024, logger: () => undefined });
  });
  afterAll(async () => {
    // The emulator hangs up first: the callers are idle, and a wrtc peer must not be sending when
    // the far end closes (docs/contributing.md, "A native crash named").
    await emu?.close();
    for (const c of callers) c.close();
  });

  it('mints a client secret for the caller: robot pinned, expiry at most 10 minutes, no key in the answer', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await mint('alice', { expires_after: { seconds: 7200 }, session: { audio: { input: { transcription: { language: 'en' } } } } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(emu.apiKey);
    const secret = JSON.parse(text);
    expect(secret.value).toMatch(/^ek_/);
    expect(secret.expires_at - before).toBeLessThanOrEqual(601);
    expect(secret.session.model).toBe(robotId);

    expect((await mint('alice', { session: { model: 'another-robot' } })).status).toBe(422);
    expect((await ask('', '/realtime/client_secrets', { method: 'POST', body: '{}' })).status).toBe(401);
    const unknown = await relay.fetch(new Request(`http://relay.test${P}/v1/robots/no-such-robot/realtime/client_secrets`, { method: 'POST', headers: { 'x-test-user': 'alice', 'content-type': 'application/json' }, body: '{}' }));
    expect(unknown.status).toBe(404);
  });

  it('a relay-minted ek_ starts a call that is the caller\'s session (E13 scoped, E19 owned)', async () => {
    const secret = await (await mint('alice')).json();
    const caller = await OaiCaller.connect((sdp) =>
      fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${secret.value}`, 'content-type': 'application/sdp' }, body: sdp }));
    callers.push(caller);
    await caller.waitFor('session.created');
    caller.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] } });
    caller.send({ type: 'response.create' });
    await caller.waitFor('response.done', () => true, 20000);

    const mine = await (await ask('alice', '/realtime-usage')).json();
    expect(mine.sessions.map((s: { session_id: string }) => s.session_id)).toContain(caller.callId);
    expect(mine.sessions.find((s: { session_id: string }) => s.session_id === caller.callId).user_identifier).toBe('alice');
    const theirs = await (await ask('bob', '/realtime-usage')).json();
    expect(theirs.sessions.map((s: { session_id: string }) => s.session_id)).not.toContain(caller.callId);
    const messages = await relay.fetch(new Request(`http://relay.test${P}/v1/${robotId}/session.messages?session_id=${caller.callId}`, { headers: { 'x-test-user': 'alice' } }));
    expect(messages.status).toBe(200);
    const forBob = await relay.fetch(new Request(`http://relay.test${P}/v1/${robotId}/session.messages?session_id=${caller.callId}`, { headers: { 'x-test-user': 'bob' } }));
    expect(forBob.status).toBe(404);
    // One secret, one call: its granted id is used up.
    const again = await fetch(`${emu.url}/v1/realtime/calls`, { method: 'POST', headers: { authorization: `Bearer ${secret.value}`, 'content-type': 'application/sdp' }, body: 'v=0' });
    expect(again.status).toBeGreaterThanOrEqual(400);
  });

  it('unified interface: SDP in, SDP out with a Location under the prefix; the call is the caller\'s', async () => {
    const caller = await OaiCaller.connect((sdp) => {
      const form = new FormData();
      form.set('sdp', sdp);
      form.set('session', JSON.stringify({ type: 'realtime', audio: { input: { transcription: { language: 'en' } } } }));
      return ask('carol', '/realtime/calls', { method: 'POST', body: form });
    });
    callers.push(caller);
    const created = await caller.waitFor('session.created');
    expect(created.session.model).toBe(robotId);
    caller.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How long is the warranty?' }] } });
    caller.send({ type: 'response.create' });
    const done = await caller.waitFor('response.done', () => true, 20000);
    expect(done.response.output[0]!.content[0]!.transcript).toMatch(/two-year warranty/);
    // The turn is recorded as the response ends, not before response.done leaves: wait for its row
    // (as a client of the real service would) rather than read the usage once.
    const row = await vi.waitFor(async () => {
      const res = await ask('carol', '/realtime-usage');
      expect(res.status, await res.clone().text()).toBe(200);
      const found = ((await res.json()) as { sessions: Array<{ session_id: string; turn_count: number }> }).sessions.find((s) => s.session_id === caller.callId);
      expect(found?.turn_count).toBe(1);
      return found;
    }, { timeout: 10_000, interval: 50 });
    expect(row).toMatchObject({ user_identifier: 'carol', turn_count: 1 });
    const audio = await ask('carol', `/realtime-audio/download?session_id=${caller.callId}`);
    expect(audio.status).toBe(200);
    expect((await ask('dave', `/realtime-audio/download?session_id=${caller.callId}`)).status).toBe(404);
  });

  it('answers with the Location under the prefix, refuses other robots, non-SDP bodies and oversized offers', async () => {
    const offer = await new Promise<Response>((resolve, reject) => {
      OaiCaller.connect(async (sdp) => {
        const res = await ask('erin', '/realtime/calls', { method: 'POST', headers: { 'content-type': 'application/sdp' }, body: sdp });
        resolve(res.clone());
        return res;
      }).then((c) => callers.push(c), reject);
    });
    expect(offer.status).toBe(201);
    expect(offer.headers.get('content-type')).toBe('application/sdp');
    expect(offer.headers.get('location')).toMatch(new RegExp(`^${P}/v1/robots/${robotId}/realtime/calls/[0-9a-f-]{36}$`));

    const form = new FormData();
    form.set('sdp', 'v=0');
    form.set('session', JSON.stringify({ model: 'another-robot' }));
    expect((await ask('erin', '/realtime/calls', { method: 'POST', body: form })).status).toBe(422);
    expect((await ask('erin', '/realtime/calls', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(415);
    const huge = await ask('erin', '/realtime/calls', { method: 'POST', headers: { 'content-type': 'application/sdp' }, body: 'v=0\n'.padEnd(40 * 1024, 'a') });
    expect(huge.status).toBe(413);
  });
});
