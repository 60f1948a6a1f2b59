import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, SERVER_LIMIT_DEFAULTS } from '../../src/relay/index.js';
import { KEY, startFakeUpstream, type FakeUpstream } from '../relay/helpers.js';

// Issue 10, limits: serveRelay relied on Node's defaults (slow-header sockets were held 90 s).
// Its time limits are explicit, documented defaults and configurable.

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

const relay = () => createRelay({ upstream: upstream.url, apiKey: KEY, logger: () => {} });

/** Opens a socket, sends `text` and resolves with how long the server kept it open (ms) and what it answered. */
function holdOpen(url: string, text: string, giveUpMs: number): Promise<{ heldMs: number; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.on('data', (d) => (answer += d.toString()));
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ heldMs: Date.now() - started, answer });
    });
    socket.on('error', () => {});
  });
}

describe('serveRelay time limits', () => {
  it('has explicit defaults: headers 10 s, whole request 30 s, keep-alive 5 s', async () => {
    expect(SERVER_LIMIT_DEFAULTS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
    const s = await serveRelay(relay(), { port: 0 });
    try {
      expect(s.server.headersTimeout).toBe(10_000);
      expect(s.server.requestTimeout).toBe(30_000);
      expect(s.server.keepAliveTimeout).toBe(5_000);
    } finally {
      await s.close();
    }
  });

  it('closes a slow-header (slowloris) socket once headersTimeoutMs passes', async () => {
    const s = await serveRelay(relay(), { port: 0, headersTimeoutMs: 400, requestTimeoutMs: 800 });
    try {
      const { heldMs, answer } = await holdOpen(s.url, 'GET /api/voice/v1/robots/x/realtime-usage HTTP/1.1\r\nHost: x\r\nX-Slow: ', 10_000);
      expect(heldMs).toBeLessThan(3_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await s.close();
    }
  });

  it('closes a request whose body never finishes once requestTimeoutMs passes', async () => {
    const s = await serveRelay(relay(), { port: 0, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const { heldMs } = await holdOpen(s.url, `POST /api/voice/v1/robots/x/realtime/warmup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"language"`, 10_000);
      expect(heldMs).toBeLessThan(3_000);
    } finally {
      await s.close();
    }
  });

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
    const s = await serveRelay(relay(), { port: 0, keepAliveTimeoutMs: 200 });
    try {
      const { heldMs, answer } = await holdOpen(s.url, 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n', 10_000);
      expect(answer).toMatch(/^HTTP\/1\.1 404/);
      expect(heldMs).toBeLessThan(2_000);
    } finally {
      await s.close();
    }
  });

  it('refuses a non-positive limit', async () => {
    await expect(serveRelay(relay(), { port: 0, headersTimeoutMs: 0 })).rejects.toThrow(/headersTimeoutMs/);
  });
});
