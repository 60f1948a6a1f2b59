import { describe, expect, it } from 'vitest';
import { canonicalSegments, compileRoutes, MATCH_CACHE_SIZE, matchRoute as matchIn, normalizePrefix } from '../../src/relay/router.js';
import { RELAY_ENDPOINT_IDS, RELAY_ROUTES, RELAY_TABLE } from '../../src/relay/routes.js';

const matchRoute = (method: string, path: string, prefix: string) => matchIn(method, path, prefix, RELAY_TABLE);
import { endpoints, openaiRelayEndpoints } from '../../src/schemas/index.js';
import { SessionGrants } from '../../src/relay/grant.js';

const ROBOT = 'robot-1';

const P = '/api/voice';
const R = '6f1c1e0e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';

describe('allowlist matching', () => {
  it('matches every allowed endpoint with its method and path, and extracts params', () => {
    const cases: [string, string, string, Record<string, string>][] = [
      ['RS', 'POST', `/v1/robots/${R}/realtime/sessions`, { ai_id: R }],
      ['RT', 'PATCH', `/v1/robots/${R}/realtime/sessions/s-1`, { ai_id: R, session_id: 's-1' }],
      ['E1', 'POST', `/v1/robots/${R}/realtime/warmup`, { ai_id: R }],
      ['E11', 'GET', `/v1/robots/${R}/realtime-cost`, { ai_id: R }],
      ['E12', 'GET', `/v1/robots/${R}/realtime-cost/sessions`, { ai_id: R }],
      ['E13', 'GET', `/v1/robots/${R}/realtime-usage`, { ai_id: R }],
      ['E14', 'GET', `/v1/robots/${R}/realtime-audio/download`, { ai_id: R }],
      ['E17', 'GET', `/v1/${R}/session.messages/m1`, { ai_id: R, message_id: 'm1' }],
      ['E19', 'GET', `/v1/${R}/session.messages`, { ai_id: R }],
      ['E6', 'PATCH', `/v1/${R}/message_rating`, { ai_id: R }],
      ['E18', 'GET', `/v1/question/references/${R}`, { ai_id: R }],
      ['E9', 'POST', '/pdf/highlight', {}],
      ['E15', 'DELETE', `/v1/${R}/sessions/s-1`, { ai_id: R, session_id: 's-1' }],
      ['OAI_SECRET', 'POST', `/v1/robots/${R}/realtime/client_secrets`, { ai_id: R }],
      ['OAI_CALL', 'POST', `/v1/robots/${R}/realtime/calls`, { ai_id: R }],
    ];
    expect(cases.map((c) => c[0]).sort()).toEqual([...RELAY_ENDPOINT_IDS].sort());
    for (const [id, method, path, params] of cases) {
      const m = matchRoute(method, P + path, P);
      expect(m?.id, `${method} ${path}`).toBe(id);
      expect(m?.params).toEqual(params);
      const table: Record<string, { path: string }> = { ...endpoints, ...openaiRelayEndpoints };
      expect(table[m!.id]!.path).toBe(table[id]!.path);
    }
  });

  it('does not match endpoints outside the allowlist', () => {
    for (const id of ['E2', 'E3', 'E4', 'E5', 'E7', 'E8', 'E10', 'E16', 'E20'] as const) {
      const e = endpoints[id];
      const path = e.path.replace(/\{(\w+)\}/g, R);
      expect(matchRoute(e.method, P + path, P), id).toBeNull();
    }
  });

  it.each([
    ['wrong method', 'GET', `${P}/v1/robots/${R}/realtime/warmup`],
    ['lower-case method', 'patch', `${P}/v1/${R}/message_rating`],
    ['mixed-case literal', 'GET', `${P}/v1/robots/${R}/Realtime-Cost`],
    ['mixed-case version', 'GET', `${P}/V1/robots/${R}/realtime-cost`],
    ['mixed-case prefix', 'GET', `/API/voice/v1/robots/${R}/realtime-cost`],
    ['no prefix', 'GET', `/v1/robots/${R}/realtime-cost`],
    ['double slash', 'GET', `${P}//v1/robots/${R}/realtime-cost`],
    ['inner double slash', 'GET', `${P}/v1/robots//${R}/realtime-cost`],
    ['trailing slash', 'GET', `${P}/v1/robots/${R}/realtime-cost/`],
    ['dot-dot segment', 'GET', `${P}/v1/robots/../ais/gen_prompt`],
    ['encoded dot-dot', 'GET', `${P}/v1/robots/%2e%2e/realtime-cost`],
    ['upper encoded dot-dot', 'GET', `${P}/v1/robots/%2E%2E/realtime-cost`],
    ['dot segment', 'GET', `${P}/v1/robots/./realtime-cost`],
    ['encoded slash in param', 'GET', `${P}/v1/robots/a%2f..%2fx/realtime-cost`],
    ['encoded backslash', 'GET', `${P}/v1/robots/a%5cb/realtime-cost`],
    ['double-encoded slash', 'GET', `${P}/v1/robots/a%252fb/realtime-cost`],
    ['NUL byte', 'GET', `${P}/v1/robots/a%00b/realtime-cost`],
    ['bad escape', 'GET', `${P}/v1/robots/%zz/realtime-cost`],
    ['param naming another endpoint', 'GET', `${P}/v1/robots/session.messages`],
    ['reserved word as ai_id', 'DELETE', `${P}/v1/datasets/sessions/x`],
    ['extra segment', 'GET', `${P}/v1/robots/${R}/realtime-cost/sessions/extra`],
  ])('rejects %s', (_name, method, path) => {
    expect(matchRoute(method, path, P)).toBeNull();
  });

  it('canonicalSegments decodes safe escapes and refuses unsafe ones', () => {
    expect(canonicalSegments('/a/%62c/d')).toEqual(['a', 'bc', 'd']);
    expect(canonicalSegments('/a/%2e%2e')).toBeNull();
    expect(canonicalSegments('a/b')).toBeNull();
    expect(canonicalSegments('/')).toEqual([]);
  });

  it('normalises prefixes', () => {
    expect(normalizePrefix('/api/voice/')).toBe('/api/voice');
    expect(normalizePrefix('api')).toBe('/api');
    expect(normalizePrefix('/')).toBe('');
    expect(() => normalizePrefix('/a/../b')).toThrow(TypeError);
    expect(matchRoute('GET', `/v1/robots/${R}/realtime-cost`, '')?.id).toBe('E11');
  });
});

describe('remembered matches', () => {
  const R = '7d3c6a52-1f0e-4b8a-9c2d-5e4f3a2b1c01';
  it('a path matched once answers from memory with the same frozen match; prefix and method are part of the key', () => {
    const table = compileRoutes(RELAY_ROUTES);
    const first = matchIn('GET', `/api/v1/robots/${R}/realtime-usage`, '/api', table);
    expect(first?.id).toBe('E13');
    expect(Object.isFrozen(first) && Object.isFrozen(first!.params)).toBe(true);
    expect(matchIn('GET', `/api/v1/robots/${R}/realtime-usage`, '/api', table)).toBe(first);
    expect(matchIn('GET', `/v1/robots/${R}/realtime-usage`, '', table)).not.toBe(first);
    expect(matchIn('GET', `/other/v1/robots/${R}/realtime-usage`, '/api', table)).toBeNull();
    expect(matchIn('POST', `/api/v1/robots/${R}/realtime-usage`, '/api', table)).toBeNull();
  });

  it('remembers at most MATCH_CACHE_SIZE paths, and never a path off the allowlist', () => {
    const table = compileRoutes(RELAY_ROUTES);
    for (let i = 0; i < 3 * MATCH_CACHE_SIZE; i++) {
      expect(matchIn('GET', `/v1/robots/r${i}/realtime-usage`, '', table)?.params).toEqual({ ai_id: `r${i}` });
      expect(matchIn('GET', `/v1/robots/r${i}/nowhere`, '', table)).toBeNull();
      expect(table.found.size).toBeLessThanOrEqual(MATCH_CACHE_SIZE);
    }
    expect([...table.found.keys()].every((k) => k.endsWith('/realtime-usage'))).toBe(true);
  });
});

describe('session grants', () => {
  it('mints v8 UUIDs that verify only for their user and secret', async () => {
    const grants = new SessionGrants('secret-a');
    const id = await grants.mint('alice', ROBOT);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await grants.verify(id, 'alice', ROBOT)).toBe(true);
    expect(await grants.verify(id, 'bob', ROBOT)).toBe(false);
    expect(await new SessionGrants('secret-b').verify(id, 'alice', ROBOT)).toBe(false);
    // Another instance with the same secret accepts it: no shared state needed.
    expect(await new SessionGrants('secret-a').verify(id, 'alice', ROBOT)).toBe(true);
    expect(await grants.mint('alice', ROBOT)).not.toBe(id);
  });

  it('binds a grant to its robot too (#36 item 2: a grant of one robot opened the same user\'s sessions of every robot)', async () => {
    const grants = new SessionGrants('secret-a');
    const id = await grants.mint('alice', ROBOT);
    expect(await grants.verify(id, 'alice', 'robot-2')).toBe(false);
    // The length prefix keeps (robot, user) pairs apart that would concatenate alike.
    const joined = await grants.mint('b', 'robot-1a');
    expect(await grants.verify(joined, 'ab', 'robot-1')).toBe(false);
  });

  it('rejects tampered, upper-cased and non-v8 ids', async () => {
    const grants = new SessionGrants('secret-a');
    const id = await grants.mint('alice', ROBOT);
    const last = id.at(-1)!;
    expect(await grants.verify(id.slice(0, -1) + (last === '0' ? '1' : '0'), 'alice', ROBOT)).toBe(false);
    const first = id[0]!;
    expect(await grants.verify((first === '0' ? '1' : '0') + id.slice(1), 'alice', ROBOT)).toBe(false);
    expect(await grants.verify(id.toUpperCase(), 'alice', ROBOT)).toBe(false);
    expect(await grants.verify(crypto.randomUUID(), 'alice', ROBOT)).toBe(false);
    expect(await grants.verify('', 'alice', ROBOT)).toBe(false);
  });
});
