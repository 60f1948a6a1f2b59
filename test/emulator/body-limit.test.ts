import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { limitBody } from '../../emulator/src/http/body-limit.js';

/** A request whose `body` is counted when read, as @hono/node-server's lazy request builds a web Request then. */
function counted(init: { method: string; headers?: Record<string, string>; body?: string }) {
  const request = new Request('http://emulator.test/x', { method: init.method, headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  const seen = { body: 0 };
  const body = request.body;
  Object.defineProperty(request, 'body', { get: () => (seen.body++, body) });
  return { request, seen };
}

function app(maxBytes: number) {
  const a = new Hono();
  a.use(limitBody(maxBytes));
  a.all('/x', async (c) => c.json({ bytes: c.req.method === 'GET' ? 0 : (await c.req.text()).length }));
  return a;
}

describe('limitBody (the emulator\'s request body cap)', () => {
  it('a request without a body goes on without its body being asked for', async () => {
    const { request, seen } = counted({ method: 'GET' });
    const res = await app(10).fetch(request);
    expect(res.status).toBe(200);
    expect(seen.body).toBe(0);
    const empty = counted({ method: 'POST', headers: { 'content-length': '0' } });
    expect((await app(10).fetch(empty.request)).status).toBe(200);
    expect(empty.seen.body).toBe(0);
  });

  it('refuses a declared length over the cap with 413 { detail }, and passes one within it', async () => {
    const over = await app(10).fetch(new Request('http://emulator.test/x', { method: 'POST', body: 'x'.repeat(11), headers: { 'content-length': '11' } }));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ detail: 'Request body exceeds 10 bytes' });
    const within = await app(10).fetch(new Request('http://emulator.test/x', { method: 'POST', body: 'x'.repeat(10), headers: { 'content-length': '10' } }));
    expect(await within.json()).toEqual({ bytes: 10 });
  });

  it('counts a chunked body (no declared length) and refuses it once it passes the cap', async () => {
    const chunks = (n: number) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < n; i++) c.enqueue(new TextEncoder().encode('xxxx'));
          c.close();
        },
      });
    const chunked = (n: number) => new Request('http://emulator.test/x', { method: 'POST', body: chunks(n), headers: { 'transfer-encoding': 'chunked' }, duplex: 'half' } as RequestInit);
    expect((await app(10).fetch(chunked(3))).status).toBe(413);
    expect(await (await app(10).fetch(chunked(2))).json()).toEqual({ bytes: 8 });
  });
});
