import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type RelayServer } from '../../src/relay/index.js';
import { parseRequest, queryFromUrl, queryToObject, endpoints } from '../../src/schemas/index.js';
import { useEmulator } from '../helpers/emulator.js';

// Issue 10, defect 2: query keys named like Object.prototype members answered 500 (`shape[key]`
// read inherited members). Every caller-supplied name that indexes an object must be an ordinary
// unknown key: 422 extra_forbidden in the query or the body, a plain value in the path.

const KEYS = ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
const SESSION = '00000000-0000-4000-8000-000000000001';

const emu = useEmulator({ agentBuildMs: 50 });
let relay: RelayServer;
beforeAll(async () => {
  relay = await serveRelay(createRelay({ upstream: emu.url, apiKey: emu.apiKey, robots: '*', authorize: () => ({ userIdentifier: 'qa', role: 'admin' }), logger: () => {} }), { port: 0 });
});
afterAll(async () => {
  await relay.close();
});

const bases = () => [
  ['emulator', emu.url, { authorization: `Bearer ${emu.apiKey}` }],
  ['relay', `${relay.url}/api/voice`, {}],
] as const;

describe('Object.prototype names from callers', () => {
  it.each(KEYS)('?%s=1 is 422 extra_forbidden on E19 (no key needed) from the emulator and the relay', async (key) => {
    for (const [who, base, headers] of bases()) {
      const res = await fetch(`${base}/v1/${emu.robotId}/session.messages?session_id=${SESSION}&${key}=1`, { headers });
      expect(res.status, who).toBe(422);
      expect((await res.json()).detail, who).toContainEqual({ loc: ['query', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
    }
  });

  it.each(KEYS)('?%s=1 on an endpoint without a query is 422 extra_forbidden', async (key) => {
    for (const [who, base, headers] of bases()) {
      const res = await fetch(`${base}/v1/${emu.robotId}/session.messages/m1?${key}=1`, { headers });
      expect(res.status, who).toBe(422);
      expect((await res.json()).detail, who).toEqual([{ loc: ['query', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
    }
  });

  it.each(KEYS)('a JSON body key %s is 422 extra_forbidden and never reaches a handler', async (key) => {
    for (const [who, base, headers] of bases()) {
      const res = await fetch(`${base}/v1/robots/${emu.robotId}/realtime/warmup`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: `{"${key}":{"polluted":true}}` });
      expect(res.status, who).toBe(422);
      expect((await res.json()).detail, who).toContainEqual({ loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(KEYS.filter((k) => k !== '__proto__'))('a path segment %s is an ordinary value (404 unknown robot/message, never 500)', async (key) => {
    for (const [who, base, headers] of bases()) {
      const res = await fetch(`${base}/v1/${key}/session.messages/${key}`, { headers });
      expect(res.status, who).toBe(404);
    }
  });

  it('a header named like a prototype member is ignored (the relay reads headers by fixed names)', async () => {
    const res = await fetch(`${relay.url}/api/voice/v1/robots/${emu.robotId}/realtime-usage`, { headers: { constructor: '1', __proto__: 'x', 'x-request-id': 'constructor' } as Record<string, string> });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('constructor');
  });

  it('queryToObject and parseRequest keep a __proto__ key as an own key', () => {
    const q = queryToObject(endpoints.E19.query, new URLSearchParams('__proto__=1&toString=2'));
    expect(Object.keys(q)).toEqual(['__proto__', 'toString']);
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    const parsed = parseRequest(endpoints.E19, { params: { ai_id: 'r' }, query: queryFromUrl(endpoints.E19, new URLSearchParams(`session_id=${SESSION}&__proto__=1`)) });
    expect(parsed).toEqual({ ok: false, detail: [{ loc: ['query', '__proto__'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] });
  });
});
