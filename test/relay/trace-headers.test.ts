import { describe, expect, it } from 'vitest';
import { createRelay, type RelayTracer } from '../../src/relay/index.js';
import { MAX_TRACESTATE_CHARS, MAX_TRACESTATE_MEMBERS } from '../../src/relay/trace-context.js';
import { fakeUpstreamFor, KEY, ROBOT } from './helpers.js';

// Issue 46 (relay): traceparent/tracestate were forwarded unchecked (malformed, 15 KB, duplicates
// joined "a, b"), and with a tracer the caller's tracestate went on after its invalid traceparent
// was replaced.

const upstream = fakeUpstreamFor((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: 'ok' }));
});
const url = `http://relay.test/api/voice/v1/robots/${ROBOT}/realtime/warmup`;
const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const SPAN = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** What the upstream saw of the trace headers when the caller sent `headers` (a list: repeated names stay repeated). */
async function seenWith(headers: [string, string][], tracing?: RelayTracer) {
  const relay = createRelay({ upstream: upstream.url, apiKey: KEY, logger: () => {}, ...(tracing ? { tracing } : {}) });
  upstream.seen.length = 0;
  const res = await relay.fetch(new Request(url, { method: 'POST', headers: new Headers([['content-type', 'application/json'], ...headers]), body: '{}' }));
  expect(res.status).toBe(200);
  const seen = upstream.seen[0]!.headers;
  return { traceparent: seen.traceparent, tracestate: seen.tracestate };
}

describe('trace headers go upstream only when W3C-valid and within the limits', () => {
  it('a valid pair passes as it is', async () => {
    expect(await seenWith([['traceparent', VALID], ['tracestate', 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7']])).toEqual({ traceparent: VALID, tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7' });
  });

  it.each([
    ['malformed', 'not-a-trace'],
    ['upper case', VALID.toUpperCase()],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', VALID.replace(/^00/, 'ff')],
    ['15 KB', `${VALID}-${'a'.repeat(15_000)}`],
  ])('a %s traceparent is dropped, and its tracestate with it', async (_name, traceparent) => {
    expect(await seenWith([['traceparent', traceparent], ['tracestate', 'congo=t61rcWkgMzE']])).toEqual({ traceparent: undefined, tracestate: undefined });
  });

  it('two traceparent headers (joined "a, b") are dropped', async () => {
    expect(await seenWith([['traceparent', VALID], ['traceparent', SPAN]])).toEqual({ traceparent: undefined, tracestate: undefined });
  });

  it('two tracestate headers form one list and pass; a duplicated key does not', async () => {
    expect(await seenWith([['traceparent', VALID], ['tracestate', 'a=1'], ['tracestate', 'b=2']])).toEqual({ traceparent: VALID, tracestate: 'a=1, b=2' });
    expect(await seenWith([['traceparent', VALID], ['tracestate', 'a=1'], ['tracestate', 'a=2']])).toEqual({ traceparent: VALID, tracestate: undefined });
  });

  it.each([
    ['15 KB', `a=${'x'.repeat(15_000)}`],
    [`over ${MAX_TRACESTATE_CHARS} characters`, Array.from({ length: 20 }, (_, i) => `k${i}=${'v'.repeat(24)}`).join(',')],
    [`over ${MAX_TRACESTATE_MEMBERS} members`, Array.from({ length: MAX_TRACESTATE_MEMBERS + 1 }, (_, i) => `k${i}=1`).join(',')],
    ['a bad key', 'Congo=1'],
    ['a value with "="', 'a=b=c'],
    ['a member without "="', 'congo'],
    ['a control character', 'a=b\tc'],
  ])('a tracestate %s is dropped; the traceparent still passes', async (_name, tracestate) => {
    expect(await seenWith([['traceparent', VALID], ['tracestate', tracestate]])).toEqual({ traceparent: VALID, tracestate: undefined });
  });

  it(`${MAX_TRACESTATE_MEMBERS} members within ${MAX_TRACESTATE_CHARS} characters pass`, async () => {
    const tracestate = Array.from({ length: MAX_TRACESTATE_MEMBERS }, (_, i) => `k${i}=${i}`).join(',');
    expect(await seenWith([['traceparent', VALID], ['tracestate', tracestate]])).toEqual({ traceparent: VALID, tracestate });
  });

  it("with a tracer, the caller's tracestate is dropped when its traceparent was invalid and the span replaced it", async () => {
    const tracer: RelayTracer = { start: () => ({ traceparent: SPAN, end() {} }) };
    expect(await seenWith([['traceparent', 'garbage'], ['tracestate', 'congo=t61rcWkgMzE']], tracer)).toEqual({ traceparent: SPAN, tracestate: undefined });
    expect(await seenWith([['tracestate', 'congo=t61rcWkgMzE']], tracer)).toEqual({ traceparent: SPAN, tracestate: undefined });
    expect(await seenWith([['traceparent', VALID], ['tracestate', 'congo=t61rcWkgMzE']], tracer)).toEqual({ traceparent: SPAN, tracestate: 'congo=t61rcWkgMzE' });
  });
});
