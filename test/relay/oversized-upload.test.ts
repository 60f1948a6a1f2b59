import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, serveRelay, type RelayServer } from '../../src/relay/index.js';
import { KEY, ROBOT, startFakeUpstream, type FakeUpstream } from './helpers.js';

// A browser uploading more than the body cap must read the 413 and its { detail }, not "Failed to
// fetch": the relay reads (and discards) what is in flight, within a bound, before it answers.
// Plain fetch (undici) on loopback, 100 uploads of 5 MB, four at a time; every one must get the 413.
// A client that sends its whole body before it reads (as a busy page may) is the deterministic case:
// a server that answers and closes with the body unread resets the connection, and the reset
// discards the answer the client had not read yet.

const UPLOADS = 100;
const SIZE = 5 * 1024 * 1024;
const PARALLEL = 4;

let upstream: FakeUpstream;
let server: RelayServer;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  server = await serveRelay(createRelay({ upstream: upstream.url, apiKey: KEY, logger: () => {} }), { port: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});

async function upload(body: Uint8Array<ArrayBuffer>, chunked: boolean): Promise<{ status: number; body: unknown } | { error: string }> {
  const url = `${server.url}/api/voice/v1/robots/${ROBOT}/realtime/sessions`;
  // Without a declared length (a stream body), the relay only finds out after reading past the cap.
  const payload = chunked ? new Blob([body]).stream() : body;
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload, ...(chunked ? { duplex: 'half' } : {}) } as RequestInit);
    return { status: res.status, body: await res.json() };
  } catch (error) {
    return { error: String((error as Error).cause ?? error) };
  }
}

describe('oversized uploads over node:http', () => {
  it(`answers all ${UPLOADS} uploads of 5 MB with a readable 413 { detail } (declared and chunked lengths)`, async () => {
    const body = new Uint8Array(SIZE).fill(0x20);
    const results: Awaited<ReturnType<typeof upload>>[] = [];
    for (let i = 0; i < UPLOADS; i += PARALLEL) {
      results.push(...(await Promise.all(Array.from({ length: Math.min(PARALLEL, UPLOADS - i) }, (_, j) => upload(body, (i + j) % 2 === 1)))));
    }
    const failed = results.filter((r) => !('status' in r) || r.status !== 413);
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([]);
    for (const r of results) expect(r).toEqual({ status: 413, body: { detail: 'Request body exceeds 65536 bytes' } });
    expect(upstream.seen).toHaveLength(0);
  }, 120_000);

  it('answers a client that writes its whole 5 MB body before reading (no reset, the 413 arrives)', async () => {
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.pause();
      socket.on('error', (error) => resolve(`error: ${error.message}`));
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
      const head = `POST /api/voice/v1/robots/${ROBOT}/realtime/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${SIZE}\r\nConnection: close\r\n\r\n`;
      socket.write(head);
      // Reading starts only once the whole body is written (and flushed to the kernel).
      socket.end(Buffer.alloc(SIZE, 0x20), () => socket.resume());
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('{"detail":"Request body exceeds 65536 bytes"}');
  }, 60_000);
});

