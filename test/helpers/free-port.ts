import { createServer } from 'node:net';

/**
 * A loopback TCP port nobody listens on right now: for a relay that is down, or for a server that
 * must be told its port up front (turn-server reports the port it was given, not the one it got).
 */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
