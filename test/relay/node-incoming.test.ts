import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelay, toNodeHandler } from '../../src/relay/index.js';
import { fakeUpstreamFor, KEY, ROBOT, sendJson } from './helpers.js';

// The Node adapter's request (src/relay/node/incoming.ts): it reads Node's `req` once per member and
// learns of the caller going away from the socket, because Express gives every request's `req` and
// `res` a hidden class of their own (each read of them misses V8's inline caches). These tests hold
// the behaviour that change must keep, in Express and on plain node:http.

const upstream = fakeUpstreamFor((_req, res) => sendJson(res, 200, { ok: true }));
const usage = `/api/voice/v1/robots/${ROBOT}/realtime-usage`;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const relay = () => toNodeHandler(createRelay({ upstream: upstream.url, apiKey: KEY }));

describe('the Node adapter on a kept-alive connection', () => {
  it("leaves no listener on the socket after each reply: 30 requests on one connection in Express", async () => {
    const app = express();
    app.use(express.json());
    app.use(relay());
    const counts: number[] = [];
    const sockets = new Set<Socket>();
    const url = await listen((req, res) => {
      sockets.add(req.socket);
      // 'finish' comes after the reply is written, when the relay has let go of the socket.
      res.once('finish', () => counts.push(req.socket.listenerCount('close')));
      app(req, res);
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 30; i++) {
        const res = await fetchVia(agent, `${url}${usage}`);
        expect(res.status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
    expect(sockets.size).toBe(1);
    expect(counts).toHaveLength(30);
    expect(new Set(counts).size).toBe(1);
  });
});

describe('the caller going away', () => {
  it('before the upstream answers aborts the upstream call (node:http and Express)', async () => {
    for (const mount of ['node', 'express'] as const) {
      let arrived!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const upstreamClosed = new Promise<void>((resolve) =>
        upstream.setHandler((_req, res) => {
          res.on('close', () => resolve());
          arrived();
        }),
      );
      const handler = relay();
      const app = express();
      app.use(handler);
      const url = await listen(mount === 'node' ? (req, res) => void handler(req, res) : app);
      const req = httpRequest(`${url}${usage}`);
      const failed = new Promise<void>((resolve) => req.on('error', () => resolve()));
      req.end();
      // Gone once the request is waiting at the upstream for an answer that never comes.
      await reached;
      req.destroy();
      await failed;
      await upstreamClosed;
    }
  });
  it('on a connection that already carried requests aborts the upstream call of the request in flight, once', async () => {
    // One 'close' listener per connection serves all its requests (watchersOf): the requests already
    // answered must have left it, and the one in flight must still hear the caller go away.
    const handler = relay();
    const app = express();
    app.use(handler);
    const url = await listen(app);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<Socket>();
    agent.on('free', (socket: Socket) => sockets.add(socket));
    try {
      for (let i = 0; i < 3; i++) expect((await fetchVia(agent, `${url}${usage}`)).status).toBe(200);
      let arrived!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      let upstreamCloses = 0;
      const upstreamClosed = new Promise<void>((resolve) =>
        upstream.setHandler((_req, res) => {
          res.on('close', () => (upstreamCloses++, resolve()));
          arrived();
        }),
      );
      const req = httpRequest(`${url}${usage}`, { agent });
      const failed = new Promise<void>((resolve) => req.on('error', () => resolve()));
      req.end();
      await reached;
      expect(sockets.size).toBe(1); // the same connection as the three before
      req.destroy();
      await failed;
      await upstreamClosed;
      expect(upstreamCloses).toBe(1);
    } finally {
      agent.destroy();
      upstream.setHandler((_req, res) => sendJson(res, 200, { ok: true }));
    }
  });
});

describe('reads of Node request members', () => {
  it('reads `headers`, `method` and `socket` of the request at most once per request, however many headers the relay asks for', async () => {
    const reads = new Map<PropertyKey, number>();
    const handler = relay();
    const url = await listen((req, res) => {
      reads.clear();
      const counted = new Proxy(req, {
        get(target, name, receiver) {
          reads.set(name, (reads.get(name) ?? 0) + 1);
          const value = Reflect.get(target, name, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      void handler(counted, res);
    });
    const res = await fetch(`${url}${usage}`, { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'x-request-id': 'r-1', 'accept-language': 'ja' } });
    expect(res.status).toBe(200);
    expect(reads.get('headers')).toBe(1);
    expect(reads.get('method')).toBe(1);
    expect(reads.get('socket') ?? 0).toBeLessThanOrEqual(1);
  });
});

function fetchVia(agent: Agent, url: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}
