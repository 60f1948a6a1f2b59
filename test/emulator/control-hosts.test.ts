import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from 'kb-voice-emulator';

// Issue 36, item 1: the emulator's control routes (no key; `fixtures` hands out the API key) against
// DNS rebinding and cross-site simple requests.

let emu: Emulator;
let port: number;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, agentBuildMs: 0, controlHosts: ['emulator.dev.test'] });
  port = Number(new URL(emu.url).port);
});
afterAll(() => emu?.close());

/** One raw request over loopback, with the given headers (Host included). */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('emulator control routes', () => {
  it('refuse a rebound host name, even from a loopback socket with a matching Origin (the key stays home)', async () => {
    const host = `rebind.attacker.example:${port}`;
    const res = await send('GET', '/_emulator/fixtures', { host, origin: `http://${host}` });
    expect(res.status).toBe(403);
    expect(res.body).not.toContain(emu.apiKey);
  });

  it('answer loopback names and the configured controlHosts', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `emulator.dev.test:${port}`]) {
      const res = await send('GET', '/_emulator/fixtures', { host });
      expect(res.status, host).toBe(200);
      expect(JSON.parse(res.body).apiKey).toBe(emu.apiKey);
    }
  });

  it('refuse cross-site requests: a foreign Origin, Sec-Fetch-Site cross-site, simple content types', async () => {
    const host = `127.0.0.1:${port}`;
    expect((await send('POST', '/_emulator/reset', { host, origin: 'https://evil.example' })).status).toBe(403);
    expect((await send('POST', '/_emulator/reset', { host, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await send('POST', '/_emulator/history', { host, 'content-type': type }, '{"sessions":1}');
      expect(res.status, type).toBe(415);
    }
    expect(emu.context.history.turns).toBe(0);
  });

  it('still take JSON from a loopback page and from tools without an Origin', async () => {
    const host = `127.0.0.1:${port}`;
    const fromPage = await send('PUT', '/_emulator/faults', { host, origin: 'http://localhost:5173', 'content-type': 'application/json' }, '{"latencyMs":0}');
    expect(fromPage.status).toBe(200);
    expect((await send('POST', '/_emulator/reset', { host })).status).toBe(200);
  });
});
