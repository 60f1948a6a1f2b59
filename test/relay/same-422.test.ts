import { startEmulator, type Emulator } from 'kb-voice-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, ValidationError, type ApiClient } from '../../src/api/index.js';
import { createRelay, serveRelay, type RelayLogEntry, type RelayServer } from '../../src/relay/index.js';
import { HTTPValidationError, type ValidationErrorItem } from '../../src/schemas/index.js';

// One request parser (`parseRequest` in src/schemas) serves the API client, the relay and the
// emulator: the same bad request gets the same 422 from all three.

let emu: Emulator;
let relay: RelayServer;
let api: ApiClient;
const logs: RelayLogEntry[] = [];
let robot: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, agentBuildMs: 50 });
  robot = emu.fixtures.robotId;
  relay = await serveRelay(createRelay({ upstream: emu.url, apiKey: emu.apiKey, robots: '*', authorize: () => ({ userIdentifier: 'qa', role: 'admin' }), logger: (e) => logs.push(e) }), { port: 0 });
  api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, retry: 0 });
});
afterAll(async () => {
  await relay.close();
  await emu.close();
});

interface Case {
  name: string;
  method: string;
  path: () => string;
  body?: string;
  /** The same request through the API client (untyped on purpose: these are bad requests), or null when a client cannot make it (malformed JSON). */
  client: ((api: ApiClient) => Promise<unknown>) | null;
}

const SESSION = '00000000-0000-4000-8000-000000000001';
const loose = (x: unknown) => x as never;

const cases: Case[] = [
  { name: 'bad path and unknown body field together', method: 'POST', path: () => '/v1/robots/not-a-uuid/realtime/warmup', body: '{"bogus":1}', client: (a) => a.realtime.warmup('not-a-uuid', loose({ bogus: 1 })) },
  { name: 'missing required body', method: 'POST', path: () => `/v1/robots/${robot}/realtime/sessions`, client: (a) => a.realtime.connect(robot, loose(undefined)) },
  { name: 'missing and wrong body fields', method: 'POST', path: () => `/v1/robots/${robot}/realtime/sessions`, body: '{"type":"answer","language":5}', client: (a) => a.realtime.connect(robot, loose({ type: 'answer', language: 5 })) },
  { name: 'query bound and unknown key', method: 'GET', path: () => `/v1/${robot}/session.messages?session_id=${SESSION}&size=5000&bogus=1`, client: (a) => a.sessions.messages(robot, loose({ session_id: SESSION, size: 5000, bogus: '1' })) },
  { name: 'missing required query', method: 'GET', path: () => `/v1/robots/${robot}/realtime-audio/download`, client: (a) => a.realtime.audio(robot, loose({})) },
  { name: 'enum out of range', method: 'PATCH', path: () => `/v1/${robot}/message_rating?session_id=${SESSION}&message_id=m&rating=5`, client: (a) => a.sessions.rate(robot, loose({ session_id: SESSION, message_id: 'm', rating: 5 })) },
  { name: 'bad datetime', method: 'GET', path: () => `/v1/robots/${robot}/realtime-usage?start_time=yesterday`, client: (a) => a.realtime.usage(robot, loose({ start_time: 'yesterday' })) },
  { name: '__proto__ as a body key', method: 'POST', path: () => `/v1/robots/${robot}/realtime/warmup`, body: '{"__proto__":{"admin":true}}', client: (a) => a.realtime.warmup(robot, JSON.parse('{"__proto__":{"admin":true}}')) },
  { name: 'malformed JSON', method: 'POST', path: () => `/v1/robots/${robot}/realtime/warmup`, body: '{"language": tru', client: null },
];

async function send(base: string, c: Case, key?: string): Promise<{ status: number; detail: ValidationErrorItem[] }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + c.path(), { method: c.method, headers, ...(c.body !== undefined ? { body: c.body } : {}) });
  const json = await res.json();
  return { status: res.status, detail: res.status === 422 ? HTTPValidationError.parse(json).detail : json };
}

describe('the same 422 from the API client, the relay and the emulator', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const fromEmulator = await send(emu.url, c, emu.apiKey);
    const before = logs.length;
    const fromRelay = await send(`${relay.url}/api/voice`, c);
    expect(fromEmulator.status).toBe(422);
    expect(fromRelay).toEqual(fromEmulator);
    // The relay's log names the 422 locations.
    const entry = logs.slice(before).find((l) => l.status === 422)!;
    for (const d of fromEmulator.detail) expect(entry.reason).toContain(`${d.loc.join('.')} (${d.type})`);
    if (c.client) {
      const error = await c.client(api).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).local).toBe(true);
      expect((error as ValidationError).detail).toEqual(fromEmulator.detail);
    }
  });
});
