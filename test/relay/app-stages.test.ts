import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, RelayError, type RelayLogEntry, type RelayStage } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// #34: an app inserts its own stages (tracing, its own checks) with `createRelay({ stages })`.

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, { bot_id: ROBOT, session_count: 0, sessions: [], totals: {} }));
});
afterAll(() => upstream.close());

const usage = `http://relay.test/api/voice/v1/robots/${ROBOT}/realtime-usage?start_time=2026-01-01T00:00:00Z&end_time=2026-01-02T00:00:00Z`;

describe('app stages', () => {
  it('run in their places: before around routing, afterAuthorize with the endpoint and caller known', async () => {
    const seen: string[] = [];
    const before: RelayStage = async (ctx, next) => {
      seen.push(`before ${ctx.endpoint} ${ctx.caller?.userIdentifier}`);
      ctx.headers['x-trace'] = 't1';
      const out = await next();
      seen.push(`before out ${out.status} ${ctx.endpoint}`);
      return out;
    };
    const after: RelayStage = async (ctx, next) => {
      seen.push(`after ${ctx.endpoint} ${ctx.caller?.userIdentifier} ${ctx.header('x-user')} ${ctx.webRequest().method}`);
      return next();
    };
    const relay = createRelay({ upstream: upstream.url, apiKey: KEY, secret: 'app-stages-secret', robots: '*', logger: () => {}, authorize: (req) => ({ userIdentifier: req.headers.get('x-user')!, role: 'user' }), stages: { before: [before], afterAuthorize: [after] } });
    const res = await relay.fetch(new Request(usage, { headers: { 'x-user': 'alice' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace')).toBe('t1');
    expect(seen).toEqual(['before undefined undefined', 'after E13 alice alice GET', 'before out 200 E13']);
  });

  it('refuse with a RelayError, answered as { detail } and logged; nothing reaches the upstream', async () => {
    const logs: RelayLogEntry[] = [];
    const gate: RelayStage = async (ctx, next) => {
      if (ctx.caller?.role !== 'admin') throw new RelayError(403, 'Staff only', 'gate refused a user');
      return next();
    };
    upstream.seen.length = 0;
    const relay = createRelay({ upstream: upstream.url, apiKey: KEY, secret: 'app-stages-secret', robots: '*', logger: (e) => logs.push(e), authorize: () => ({ userIdentifier: 'bob', role: 'user' }), stages: { afterAuthorize: [gate] } });
    const res = await relay.fetch(new Request(usage));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: 'Staff only' });
    expect(logs.at(-1)).toMatchObject({ level: 'warn', status: 403, endpoint: 'E13', role: 'user', reason: 'gate refused a user' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('are checked at creation', () => {
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, stages: { before: ['trace' as never] } })).toThrow(/stages.before/);
  });
});
