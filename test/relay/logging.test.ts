import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRelay, formatLogEntry, type RelayLogEntry } from '../../src/relay/index.js';
import { KEY, ROBOT, sendJson, startFakeUpstream, type FakeUpstream } from './helpers.js';

// Loud failures: every refusal and failure is logged once with method, endpoint id, status, the
// reason in words and a request id — never the key or a body; without a logger, to the console.

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => (req.url.includes('realtime-cost') ? sendJson(res, 500, { detail: `stack at ${KEY}` }) : sendJson(res, 200, { ok: true })));
});
afterAll(() => upstream.close());
afterEach(() => vi.restoreAllMocks());

const MARKER = 'BODY-MARKER-7f3e';
const base = 'http://relay.test/api/voice';

describe('relay log entries', () => {
  const logs: RelayLogEntry[] = [];
  const relay = () =>
    createRelay({
      upstream: upstream.url, apiKey: KEY, allowedOrigins: ['http://app.test'], maxBodyBytes: 256, logger: (e) => logs.push(e),
      robots: '*', authorize: (req) => (req.headers.get('x-user') ? { userIdentifier: req.headers.get('x-user')!, role: 'admin' } : null),
    });

  it.each([
    ['refused origin', 'GET', `/v1/robots/${ROBOT}/realtime-usage`, { origin: 'http://evil.test', 'x-user': 'a' }, undefined, 403, 'E13', /origin http:\/\/evil\.test is neither the relay's own \(http:\/\/relay\.test\) nor in allowedOrigins/],
    ['off the allowlist', 'POST', '/v1/ais/gen_prompt', { 'x-user': 'a' }, undefined, 404, undefined, /POST \/api\/voice\/v1\/ais\/gen_prompt is not on the allowlist/],
    ['no caller', 'GET', `/v1/robots/${ROBOT}/realtime-usage`, {}, undefined, 401, 'E13', /authorize returned null/],
    ['422 locations', 'POST', '/v1/robots/not-a-uuid/realtime/warmup', { 'x-user': 'a', 'content-type': 'application/json' }, `{"note":"${MARKER}"}`, 422, 'E1', /path\.ai_id \(uuid_parsing\), body\.note \(extra_forbidden\)/],
    ['oversized body', 'POST', `/v1/robots/${ROBOT}/realtime/sessions`, { 'x-user': 'a', 'content-type': 'application/json' }, `{"sdp":"${MARKER.repeat(40)}"}`, 413, 'RS', /over the 256-byte cap/],
    ['not JSON', 'POST', `/v1/robots/${ROBOT}/realtime/warmup`, { 'x-user': 'a', 'content-type': 'text/plain' }, MARKER, 415, 'E1', /content-type "text\/plain" is not application\/json/],
    ['upstream failure', 'GET', `/v1/robots/${ROBOT}/realtime-cost`, { 'x-user': 'a' }, undefined, 502, 'E11', /upstream answered 500/],
  ] as const)('%s', async (_name, method, path, headers, body, status, endpoint, reason) => {
    logs.length = 0;
    const res = await relay().fetch(new Request(base + path, { method, headers, ...(body !== undefined ? { body } : {}) }));
    expect(res.status).toBe(status);
    const entry = logs.find((l) => l.status === status)!;
    expect(entry).toMatchObject({ level: status >= 500 ? 'error' : 'warn', method, status, message: status >= 500 ? 'failed' : 'refused' });
    expect(entry.endpoint).toBe(endpoint);
    expect(entry.reason).toMatch(reason);
    expect(entry.requestId).toBe(res.headers.get('x-request-id'));
    for (const l of logs) {
      expect(JSON.stringify(l)).not.toContain(KEY);
      expect(JSON.stringify(l)).not.toContain(MARKER);
    }
  });

  it('keeps a tame caller request id, sends it upstream and returns it; makes one otherwise', async () => {
    logs.length = 0;
    upstream.seen.length = 0;
    let res = await relay().fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`, { headers: { 'x-user': 'a', 'x-request-id': 'trace-42' } }));
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    expect(upstream.seen[0]!.headers['x-request-id']).toBe('trace-42');
    expect(logs.at(-1)).toMatchObject({ level: 'info', message: 'request', requestId: 'trace-42', endpoint: 'E13', status: 200, role: 'admin' });
    res = await relay().fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`, { headers: { 'x-user': 'a', 'x-request-id': 'bad id\twith spaces' } }));
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('formats one line per entry', () => {
    expect(formatLogEntry({ level: 'warn', message: 'refused', requestId: 'r1', method: 'POST', endpoint: 'RS', status: 403, durationMs: 2, reason: 'origin http://x is not allowed' }))
      .toBe('[kb-voice relay] warn 403 POST RS req=r1 2ms refused: origin http://x is not allowed');
  });
});

describe('without a logger', () => {
  it('prints the missing-authorize warning, refusals and failures to the console, not successes', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const relay = createRelay({ upstream: upstream.url, apiKey: KEY });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/no authorize hook: every caller is treated as admin/);
    await relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`));
    await relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-usage`, { headers: { origin: 'http://localhost:5173' } }));
    await relay.fetch(new Request(`${base}/v1/robots/${ROBOT}/realtime-cost`));
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[1]![0])).toMatch(/^\[kb-voice relay\] warn 403 GET E13 req=\S+ \d+ms refused: origin http:\/\/localhost:5173 is neither/);
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0]![0])).toMatch(/error 502 GET E11 .*upstream answered 500/);
    expect(info).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
    for (const call of [...warn.mock.calls, ...error.mock.calls]) expect(String(call[0])).not.toContain(KEY);
  });
});
