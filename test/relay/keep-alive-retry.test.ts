import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../../src/relay/node/node-fetch.js';

// A kept-alive upstream connection closed as idle just as the relay reuses it: the request fails
// with ECONNRESET / "socket hang up" before any answer (seen as a 502 "upstream unreachable" in
// an under-load CI run). The Node upstream client sends it once more on a new connection.

const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** Answers the first request of each connection (keep-alive), and drops the connection at its second. */
async function dropsSecondRequest(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      while (buffered.includes('\r\n\r\n')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4);
        requests++;
        if (requests === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}');
        else socket.resetAndDestroy();
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, connections: () => connections };
}

describe('Node upstream client: a kept-alive connection closed under it', () => {
  it('sends the request again on a new connection when the reused one is reset before any answer', async () => {
    const upstream = await dropsSecondRequest();
    const fetch = createNodeFetch();
    const first = await fetch(`${upstream.url}/a`, { method: 'GET' });
    expect(first.status).toBe(200);
    await first.text();
    // The same kept-alive connection is reused and reset: the retry on a new one is answered.
    const second = await fetch(`${upstream.url}/b`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ ok: true });
    expect(upstream.connections()).toBe(2);
  });

  it('does not retry a failure on a new connection: the upstream refusing is its answer', async () => {
    const fetch = createNodeFetch();
    await expect(fetch('http://127.0.0.1:9/x', { method: 'GET' })).rejects.toThrow(/ECONNREFUSED/);
  });
});
