import { describe, expect, it, vi } from 'vitest';
import { endpoints, openaiRelayEndpoints } from '../../src/schemas/index.js';
import { compose, type Outcome, type Stage } from '../../src/relay/compose.js';
import { AllowedOrigins } from '../../src/relay/allowed-origins.js';
import { RelayContext } from '../../src/relay/context.js';
import { RelayError } from '../../src/relay/errors.js';
import { SessionGrants } from '../../src/relay/grant.js';
import type { Reply, UpstreamClient } from '../../src/relay/message.js';
import { forward } from '../../src/relay/policies/forward.js';
import { openaiSessionPaths } from '../../src/relay/policies/openai.js';
import type { RelayRoute, RelayServices, Routed } from '../../src/relay/route-types.js';
import { compileRoutes } from '../../src/relay/router.js';
import { RELAY_ROUTES } from '../../src/relay/routes.js';
import { SessionSlots } from '../../src/relay/session-slots.js';
import { authorizeStage, LOCAL_ADMIN } from '../../src/relay/stages/authorize.js';
import { corsStage } from '../../src/relay/stages/cors.js';
import { guardStage } from '../../src/relay/stages/guard.js';
import { logStage } from '../../src/relay/stages/log.js';
import { matchStage } from '../../src/relay/stages/match.js';
import { parseStage } from '../../src/relay/stages/parse.js';
import { policyStage } from '../../src/relay/stages/policy.js';
import { rateLimitStage } from '../../src/relay/stages/rate-limit.js';
import type { RelayLogEntry, RelayOptions } from '../../src/relay/types.js';
import { Upstream } from '../../src/relay/upstream.js';
import { fromRequest } from '../../src/relay/web.js';
import { KEY, ROBOT } from './helpers.js';

// Each stage of the relay on its own: a context built by hand, a `next` that records whether the
// rest of the pipeline ran, and an upstream client that records what was asked.

const OK: Reply = { status: 299, headers: {}, body: null };
const BASE = 'http://relay.test/api/voice';

interface SetupOptions {
  routes?: readonly RelayRoute[];
  authorize?: RelayOptions['authorize'];
  robots?: ReadonlySet<string> | '*';
  rateLimit?: RelayOptions['rateLimit'];
  logsInfo?: boolean;
}

/** Each stage made by its factory with the options it owns, over a recording upstream. */
function setup(options: SetupOptions = {}) {
  const asked: { url: string; method: string; headers: Record<string, string>; body?: string | Uint8Array | undefined }[] = [];
  const client: UpstreamClient = async (request) => {
    asked.push(request);
    return { status: 200, headers: new Headers({ 'content-type': 'application/json' }), body: new TextEncoder().encode('{"ok":true}'), cancel() {} };
  };
  const logs: RelayLogEntry[] = [];
  const prefix = '/api/voice';
  const table = compileRoutes(options.routes ?? RELAY_ROUTES);
  const upstream = new Upstream({ base: 'http://up.test', apiKey: KEY, secrets: [KEY], timeoutMs: 1000, client, onLeak: () => {} });
  const services: RelayServices = {
    prefix,
    table,
    upstream,
    grants: new SessionGrants('stage-secret'),
    slots: new SessionSlots(3, 60_000),
    reports: { defaultDays: 7, maxDays: 31, maxJsonBytes: 1 << 20 },
    openaiSessionFields: openaiSessionPaths(),
  };
  const passOn: Stage = (_ctx, next) => next();
  const st = {
    log: logStage({ log: (e) => logs.push(e), logsInfo: options.logsInfo ?? true, prefix, table }),
    cors: corsStage({ origins: new AllowedOrigins(['http://app.test']), prefix, table }),
    match: matchStage({ prefix, table }),
    authorize: authorizeStage({ authorize: options.authorize, robots: options.robots ?? '*', timeoutMs: 1000 }),
    rateLimit: options.rateLimit ? rateLimitStage(options.rateLimit) : passOn,
    parse: parseStage({ maxBodyBytes: 100 }),
    guard: guardStage(upstream),
    policy: policyStage(),
  };
  const context = (path: string, init: RequestInit = {}) => new RelayContext(services, fromRequest(new Request(`${BASE}${path}`, init), undefined), 'req-1');
  return { services, context, asked, logs, st };
}

/** Runs one stage with a `next` that answers OK (or what `rest` returns), and says whether `next` ran. */
async function run(stage: Stage, ctx: RelayContext, rest: () => Promise<Outcome> = async () => OK) {
  const next = vi.fn(rest);
  const out = await stage(ctx, next);
  return { out, nextCalled: next.mock.calls.length > 0 };
}

const usage = `/v1/robots/${ROBOT}/realtime-usage`;

describe('compose', () => {
  it('runs stages in order, each around the rest (onion)', async () => {
    const order: string[] = [];
    const stage = (name: string): Stage => async (_ctx, next) => {
      order.push(`${name} in`);
      const out = await next();
      order.push(`${name} out`);
      return out;
    };
    const { context, st } = setup();
    const out = await compose([stage('a'), stage('b'), async () => OK])(context(usage));
    expect(out).toBe(OK);
    expect(order).toEqual(['a in', 'b in', 'b out', 'a out']);
  });

  it('rejects next() called twice and next() past the last stage', async () => {
    const { context, st } = setup();
    await expect(compose([async (_c, next) => (await next(), next()), async () => OK])(context(usage))).rejects.toThrow(/twice/);
    await expect(compose([async (_c, next) => next()])(context(usage))).rejects.toThrow(/last relay stage/);
  });

  it('turns a synchronous throw of a plain (non-async) stage into a rejection the outer stages catch', async () => {
    const { context, st } = setup();
    const boom: Stage = () => {
      throw new Error('boom');
    };
    const run = compose([(_c, next) => next(), boom]);
    let result: Promise<Outcome> | undefined;
    expect(() => (result = run(context(usage)))).not.toThrow();
    await expect(result).rejects.toThrow('boom');
    const caught = compose([async (_c, next) => next().catch(() => OK), (_c, next) => next(), boom]);
    await expect(caught(context(usage))).resolves.toBe(OK);
  });
});

describe('cors stage', () => {
  it('adds the CORS headers of an allowed origin once, for every answer, and goes on', async () => {
    const { context, st } = setup();
    const ctx = context(usage, { headers: { origin: 'http://app.test' } });
    const { nextCalled } = await run(st.cors, ctx);
    expect(nextCalled).toBe(true);
    expect(ctx.headers).toMatchObject({ 'access-control-allow-origin': 'http://app.test', vary: 'Origin', 'x-request-id': 'req-1' });
  });

  it('lets the relay own origin and no origin through without CORS headers', async () => {
    const { context, st } = setup();
    for (const headers of [{ origin: 'http://relay.test' }, {}] as Record<string, string>[]) {
      const ctx = context(usage, { headers });
      expect((await run(st.cors, ctx)).nextCalled).toBe(true);
      expect(ctx.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('refuses a foreign origin with 403 before the rest runs', async () => {
    const { context, st } = setup();
    await expect(run(st.cors, context(usage, { headers: { origin: 'http://evil.test' } }))).rejects.toMatchObject({ status: 403 });
  });

  it('answers preflights itself: 204 with the allowed methods, 404 off the allowlist, 403 for a foreign origin', async () => {
    const { context, st } = setup();
    const pre = (origin: string, method: string, path = usage) => context(path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method } });
    const { out, nextCalled } = await run(st.cors, pre('http://app.test', 'GET'));
    expect(nextCalled).toBe(false);
    expect(out).toMatchObject({ status: 204, headers: { 'access-control-allow-methods': 'GET', 'access-control-allow-origin': 'http://app.test' } });
    await expect(run(st.cors, pre('http://app.test', 'PUT'))).rejects.toMatchObject({ status: 404 });
    await expect(run(st.cors, pre('http://evil.test', 'GET'))).rejects.toMatchObject({ status: 403 });
  });
});

describe('match stage', () => {
  it('finds the route and its decoded params', async () => {
    const { context, st } = setup();
    const ctx = context(usage);
    expect((await run(st.match, ctx)).nextCalled).toBe(true);
    expect(ctx.match).toMatchObject({ id: 'E13', params: { ai_id: ROBOT } });
  });

  it('404 off the allowlist (path or method), nothing further runs', async () => {
    const { context, st } = setup();
    await expect(run(st.match, context('/v1/ais/gen_prompt', { method: 'POST' }))).rejects.toMatchObject({ status: 404 });
    await expect(run(st.match, context(usage, { method: 'DELETE' }))).rejects.toMatchObject({ status: 404 });
  });
});

describe('authorize stage', () => {
  const routed = (s: ReturnType<typeof setup>) => {
    const ctx = s.context(usage);
    ctx.match = { id: 'E13', route: RELAY_ROUTES[5]!, params: { ai_id: ROBOT } };
    return ctx;
  };

  it('takes the caller from the hook, or the local admin without one', async () => {
    const withHook = setup({ authorize: () => ({ userIdentifier: 'alice', role: 'user' }) });
    const ctx = routed(withHook);
    await run(withHook.st.authorize, ctx);
    expect(ctx.caller).toEqual({ userIdentifier: 'alice', role: 'user' });
    const plain = setup();
    const none = routed(plain);
    await run(plain.st.authorize, none);
    expect(none.caller).toBe(LOCAL_ADMIN);
  });

  const authorizing = (authorize: RelayOptions['authorize'], robots: ReadonlySet<string> | '*' = '*') => {
    const s = setup({ authorize, robots });
    return run(s.st.authorize, routed(s));
  };

  it('401 when the hook says null, false or anything that is not a caller (#36 item 9: false and junk were 500)', async () => {
    for (const junk of [null, false, 0, 'alice', {}, { userIdentifier: '', role: 'user' }, { userIdentifier: 'a', role: 'root' }, { userIdentifier: 'a', role: 'user', robots: 'x' }]) {
      await expect(authorizing(() => junk as never)).rejects.toMatchObject({ status: 401 });
      await expect(authorizing(async () => junk as never)).rejects.toMatchObject({ status: 401 });
    }
  });

  it('a user reaches only the relay robots, narrowed by the caller robots; an admin every robot unless narrowed (403)', async () => {
    const other = new Set(['another-robot']);
    await expect(authorizing(() => ({ userIdentifier: 'a', role: 'user' }), other)).rejects.toMatchObject({ status: 403 });
    await expect(authorizing(() => ({ userIdentifier: 'a', role: 'user' }), new Set([ROBOT]))).resolves.toMatchObject({ nextCalled: true });
    await expect(authorizing(() => ({ userIdentifier: 'a', role: 'user', robots: ['another-robot'] }), '*')).rejects.toMatchObject({ status: 403 });
    await expect(authorizing(() => ({ userIdentifier: 'a', role: 'admin' }), other)).resolves.toMatchObject({ nextCalled: true });
    await expect(authorizing(() => ({ userIdentifier: 'a', role: 'admin', robots: ['another-robot'] }), '*')).rejects.toMatchObject({ status: 403 });
  });
});

describe('rateLimit stage', () => {
  const routed = (s: ReturnType<typeof setup>) => {
    const ctx = s.context(usage);
    ctx.match = { id: 'E13', route: RELAY_ROUTES[5]!, params: { ai_id: ROBOT } };
    ctx.caller = { userIdentifier: 'alice', role: 'user' };
    return ctx;
  };

  it('passes with an allowed decision; 429 with Retry-After when refused', async () => {
    const hook = vi.fn(() => true);
    const allowing = setup({ rateLimit: hook });
    expect((await run(allowing.st.rateLimit, routed(allowing))).nextCalled).toBe(true);
    expect(hook.mock.calls[0]!.slice(1)).toEqual([{ userIdentifier: 'alice', role: 'user' }, 'E13']);
    const refusing = setup({ rateLimit: () => ({ allowed: false, retryAfterSeconds: 2.5 }) });
    const refused = run(refusing.st.rateLimit, routed(refusing));
    await expect(refused).rejects.toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
  });
});

describe('parse stage', () => {
  const at = async (s: ReturnType<typeof setup>, path: string, init: RequestInit = {}) => {
    const ctx = s.context(path, init);
    await run(s.st.match, ctx, async () => OK);
    return ctx;
  };

  it('validates path, query and JSON body with the shared schemas', async () => {
    const s = setup();
    const ctx = await at(s, `${usage}?start_time=2026-01-01T00:00:00Z`);
    expect((await run(s.st.parse, ctx)).nextCalled).toBe(true);
    expect(ctx.input).toMatchObject({ params: { ai_id: ROBOT }, query: { start_time: '2026-01-01T00:00:00Z' }, body: undefined });
  });

  it('422 for a bad query, 415 for a non-JSON body, 413 over the cap: the rest never runs', async () => {
    const s = setup();
    await expect(run(s.st.parse, await at(s, `${usage}?nope=1`))).rejects.toMatchObject({ status: 422 });
    const rs = `/v1/robots/${ROBOT}/realtime/sessions`;
    await expect(run(s.st.parse, await at(s, rs, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }))).rejects.toMatchObject({ status: 415 });
    await expect(run(s.st.parse, await at(s, rs, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(101) }))).rejects.toMatchObject({ status: 413 });
  });

  it('remembers the input of a path without body or query (frozen, per remembered match); a query, a body or a refusal is parsed every time', async () => {
    const s = setup();
    const first = await at(s, usage);
    await run(s.st.parse, first);
    const second = await at(s, usage);
    expect(second.match).toBe(first.match);
    await run(s.st.parse, second);
    expect(second.input).toBe(first.input);
    expect(Object.isFrozen(first.input) && Object.isFrozen(first.input!.params) && Object.isFrozen(first.input!.query)).toBe(true);
    expect(first.input).toMatchObject({ params: { ai_id: ROBOT }, query: {}, body: undefined, text: undefined });
    const withQuery = [await at(s, `${usage}?start_time=2026-01-01T00:00:00Z`), await at(s, `${usage}?start_time=2026-01-01T00:00:00Z`)];
    for (const ctx of withQuery) await run(s.st.parse, ctx);
    expect(withQuery[0]!.input).not.toBe(withQuery[1]!.input);
    expect(withQuery[1]!.input?.query).toEqual({ start_time: '2026-01-01T00:00:00Z' });
    const rs = `/v1/robots/${ROBOT}/realtime/sessions`;
    const offer = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp: 'v=0' }) };
    const posts = [await at(s, rs, offer), await at(s, rs, offer)];
    for (const ctx of posts) await run(s.st.parse, ctx);
    expect(posts[0]!.input).not.toBe(posts[1]!.input);
    // A request the schemas refuse (a required query field missing) is a 422 each time, never remembered as valid.
    const bad = `/v1/robots/${ROBOT}/realtime-audio/download`;
    await expect(run(s.st.parse, await at(s, bad))).rejects.toMatchObject({ status: 422 });
    await expect(run(s.st.parse, await at(s, bad))).rejects.toMatchObject({ status: 422 });
  });
});

describe('policy, forward and guard stages', () => {
  const routedCtx = async (s: ReturnType<typeof setup>, role: 'user' | 'admin', path = usage) => {
    const ctx = s.context(path);
    await run(s.st.match, ctx);
    ctx.caller = { userIdentifier: 'alice', role };
    await run(s.st.parse, ctx);
    return ctx as RelayContext & Routed;
  };

  it('an admin gets the request forwarded as validated (one upstream call, key added)', async () => {
    const s = setup();
    const out = await s.st.policy(await routedCtx(s, 'admin'), async () => OK);
    expect('settle' in out).toBe(true);
    expect(s.asked).toHaveLength(1);
    expect(s.asked[0]).toMatchObject({ method: 'GET', url: `http://up.test${usage}`, headers: { authorization: `Bearer ${KEY}` } });
  });

  it('a user gets the route user policy; the route admin policy serves admins when it has one', async () => {
    const user = vi.fn(async (ctx: Routed) => forward(ctx, { query: new URLSearchParams({ a: '1' }) }));
    const admin = vi.fn(async () => OK);
    const routes: RelayRoute[] = [{ endpoint: RELAY_ROUTES[5]!.endpoint, user, admin }];
    const s = setup({ routes });
    await s.st.policy(await routedCtx(s, 'user'), async () => OK);
    expect(user).toHaveBeenCalledOnce();
    expect(s.asked[0]!.url).toBe(`http://up.test${usage}?a=1`);
    expect(await s.st.policy(await routedCtx(s, 'admin'), async () => OK)).toBe(OK);
    expect(admin).toHaveBeenCalledOnce();
  });

  it('forward reaches another endpoint of the table at its upstream path, without the request query or body', async () => {
    const s = setup();
    const ctx = await routedCtx(s, 'admin', `${usage}?start_time=2026-01-01T00:00:00Z`);
    await forward(ctx, { endpoint: endpoints.E12 });
    await forward(ctx, { endpoint: openaiRelayEndpoints.OAI_SECRET, json: {} });
    expect(s.asked.map((a) => [a.method, a.url, a.body])).toEqual([
      ['GET', `http://up.test/v1/robots/${ROBOT}/realtime-cost/sessions`, undefined],
      ['POST', 'http://up.test/v1/realtime/client_secrets', '{}'],
    ]);
  });

  it('guard turns an upstream answer into the caller reply with the request headers; relay-made replies pass', async () => {
    const s = setup();
    const ctx = await routedCtx(s, 'admin');
    ctx.headers.location = '/x';
    const reply = (await s.st.guard(ctx, () => s.st.policy(ctx, async () => OK))) as Reply;
    expect(reply).toMatchObject({ status: 200, headers: { 'x-request-id': 'req-1', location: '/x', 'content-type': 'application/json' } });
    expect(new TextDecoder().decode(reply.body as Uint8Array)).toBe('{"ok":true}');
    expect(await s.st.guard(ctx, async () => OK)).toBe(OK);
  });
});

describe('log stage', () => {
  it('answers a thrown RelayError with its { detail } and logs one warn entry', async () => {
    const s = setup();
    const ctx = s.context(usage);
    const reply = (await s.st.log(ctx, async () => {
      throw new RelayError(418, 'No tea', 'the pot is empty');
    })) as Reply;
    expect(reply.status).toBe(418);
    expect(JSON.parse(new TextDecoder().decode(reply.body as Uint8Array))).toEqual({ detail: 'No tea' });
    expect(s.logs).toEqual([expect.objectContaining({ level: 'warn', status: 418, endpoint: 'E13', reason: 'the pot is empty', requestId: 'req-1' })]);
  });

  it('answers anything else with 500 without its message, and never lets an unguarded answer out', async () => {
    const s = setup();
    const reply = (await s.st.log(s.context(usage), async () => {
      throw new Error(`boom ${KEY}`);
    })) as Reply;
    expect(reply.status).toBe(500);
    expect(new TextDecoder().decode(reply.body as Uint8Array)).not.toContain(KEY);
    const leaked = (await s.st.log(s.context(usage), async () => ({ status: 200, headers: new Headers(), body: null, cancel() {}, settle() {}, requestId: 'r' }))) as Reply;
    expect(leaked.status).toBe(500);
  });

  it('logs answered requests only when a logger was given', async () => {
    const s = setup({ logsInfo: false });
    await s.st.log(s.context(usage), async () => OK);
    expect(s.logs).toEqual([]);
  });
});
