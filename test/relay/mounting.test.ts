import { build } from 'esbuild';
import { Hono } from 'hono';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => sendJson(res, 200, { path: req.url, auth: req.headers.authorization === `Bearer ${KEY}` }));
});
afterAll(() => upstream.close());

describe('mounting', () => {
  it('bundles for an edge runtime: no Node built-in is imported statically', async () => {
    const entry = fileURLToPath(new URL('../../src/relay/index.ts', import.meta.url));
    // platform 'neutral' fails the build on any unresolvable static `node:` import.
    const out = await build({ entryPoints: [entry], bundle: true, platform: 'neutral', format: 'esm', write: false, mainFields: ['module', 'main'], logLevel: 'silent' });
    const code = out.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).not.toMatch(/require\(["']node:/);
    expect(code).toContain('createRelay');
  });

  it('serves from a Hono route (as in Workers, Next.js route handlers and other fetch runtimes)', async () => {
    const relay = createRelay({ upstream: upstream.url, apiKey: KEY });
    const app = new Hono();
    app.all('/api/voice/*', (c) => relay.fetch(c.req.raw));
    app.get('/health', (c) => c.text('ok'));
    const res = await app.request(`/api/voice/v1/robots/${ROBOT}/realtime-usage`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: `/v1/robots/${ROBOT}/realtime-usage`, auth: true });
    expect((await app.request('/api/voice/v1/ais/gen_prompt', { method: 'POST' })).status).toBe(404);
    expect(await (await app.request('/health')).text()).toBe('ok');
  });

  it('works with the global fetch as the upstream client (edge runtimes use it)', async () => {
    const relay = createRelay({ upstream: upstream.url, apiKey: KEY, fetch: (url, init) => globalThis.fetch(url, init) });
    const res = await relay.fetch(new Request(`http://relay.test/api/voice/v1/robots/${ROBOT}/realtime/warmup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: `/v1/robots/${ROBOT}/realtime/warmup`, auth: true });
  });

  it('validates its options', () => {
    expect(() => createRelay({ upstream: upstream.url, apiKey: '' })).toThrow(/apiKey/);
    expect(() => createRelay({ upstream: 'ftp://x', apiKey: KEY })).toThrow(/http/);
    expect(() => createRelay({ upstream: 'not a url', apiKey: KEY })).toThrow(/http/);
    expect(() => createRelay({ upstream: `http://u:p@127.0.0.1`, apiKey: KEY })).toThrow(/credentials/);
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, allowedOrigins: ['nope'] })).toThrow(/origin/);
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createRelay({ upstream: upstream.url, apiKey: KEY, prefix: '/a/../b' })).toThrow(/prefix/);
  });
});
