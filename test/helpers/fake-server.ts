import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Reply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string>; sse?: string[] };

/** A loopback HTTP server that records every request and answers from `handler`. */
export async function startFakeServer(handler: (req: Recorded) => Reply | Promise<Reply>) {
  const requests: Recorded[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const recorded = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString() };
    requests.push(recorded);
    const reply = await handler(recorded);
    if (reply.sse) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
      for (const event of reply.sse) res.write(event);
      res.end();
      return;
    }
    const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
    res.writeHead(reply.status ?? 200, { 'content-type': reply.json !== undefined ? 'application/json' : 'text/plain', ...reply.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
