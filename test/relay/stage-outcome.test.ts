import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type RelayLogEntry, type RelayOutcome, type RelayStage } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// Issue 46 (relay): an app stage returning a malformed outcome, or adding a header HTTP cannot carry,
// reset the socket on Node, rejected relay.fetch with a TypeError, and was logged "info 204".

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, { bot_id: ROBOT, session_count: 0, sessions: [], totals: {} }));
});
afterAll(() => upstream.close());

const path = `/api/voice/v1/robots/${ROBOT}/realtime-usage?start_time=2026-01-01T00:00:00Z&end_time=2026-01-02T00:00:00Z`;

const relayWith = (stage: RelayStage, where: 'before' | 'afterAuthorize', logs: RelayLogEntry[]) =>
  createRelay({ upstream: upstream.url, apiKey: KEY, secret: 'stage-outcome-deployment-secret', robots: '*', logger: (e) => logs.push(e), authorize: () => ({ userIdentifier: 'alice', role: 'admin' }), stages: { [where]: [stage] } });

function named(name: string, stage: RelayStage): RelayStage {
  Object.defineProperty(stage, 'name', { value: name });
  return stage;
}

const cases: [string, RelayStage, RegExp][] = [
  ['returns { status: 204 }', named('noContent', async (_ctx, next) => {
    await next();
    return { status: 204 } as RelayOutcome;
  }), /noContent\) returned \{"status":204\}/],
  ['returns undefined', named('forgetful', (async (_ctx: unknown, next: () => Promise<RelayOutcome>) => {
    await next();
  }) as unknown as RelayStage), /forgetful\) returned undefined/],
  ['answers without next()', named('shortcut', async () => ({ status: 200 }) as RelayOutcome), /shortcut\) returned/],
  ['adds a header value with CR/LF', named('splitter', async (ctx, next) => {
    ctx.headers['x-trace'] = 'a\r\nset-cookie: x=1';
    return next();
  }), /splitter\) set a value of header x-trace/],
  ['adds a header value beyond Latin-1', named('unicode', async (ctx, next) => {
    const out = await next();
    ctx.headers['x-trace'] = 'トレース';
    return out;
  }), /unicode\) set a value of header x-trace/],
  ['adds an invalid header name', named('badName', async (ctx, next) => {
    ctx.headers['x trace:'] = '1';
    return next();
  }), /badName\) set an invalid header name/],
];

describe('an app stage that breaks its contract is a clear 500, logged once with the stage named', () => {
  for (const where of ['before', 'afterAuthorize'] as const) {
    it.each(cases)(`${where}: %s (relay.fetch)`, async (_name, stage, reason) => {
      const logs: RelayLogEntry[] = [];
      const res = await relayWith(stage, where, logs).fetch(new Request(`http://relay.test${path}`));
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ detail: 'Internal relay error' });
      expect(res.headers.get('x-trace')).toBeNull();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ level: 'error', status: 500 });
      expect(logs[0]!.reason).toMatch(new RegExp(`stages\\.${where}\\[0\\] \\(`));
      expect(logs[0]!.reason).toMatch(reason);
    });
  }

  it.each(cases)('on Node: %s is answered, not a reset socket', async (_name, stage) => {
    const logs: RelayLogEntry[] = [];
    const server = await serveRelay(relayWith(stage, 'before', logs), { port: 0 });
    try {
      const res = await fetch(`${server.url.replace(/\/+$/, '')}${path}`);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ detail: 'Internal relay error' });
    } finally {
      await server.close();
    }
  });

  it('a stage that keeps its contract is untouched', async () => {
    const logs: RelayLogEntry[] = [];
    const fine = named('fine', async (ctx, next) => {
      ctx.headers['x-trace'] = 'café 1';
      return next();
    });
    const res = await relayWith(fine, 'afterAuthorize', logs).fetch(new Request(`http://relay.test${path}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace')).toBe('café 1');
  });
});
