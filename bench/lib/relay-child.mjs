#!/usr/bin/env node
// The relay of bench/relay-overhead.mjs in its own process, as deployed (a relay is a separate
// server in front of the service): `createRelay` + `serveRelay`, no authorize hook (= admin, as
// `kb-voice relay` does). Run with fork(): sends `{ url, prefix }` once listening; answers each
// `'cpu'` message with `{ cpu: process.cpuUsage(), requests }` so the parent can take this
// process's CPU per request over a run.
import { loadRelay } from './kb.mjs';

const [upstream, apiKey] = process.argv.slice(2);
const { createRelay, serveRelay } = await loadRelay();
const relay = createRelay({ upstream, apiKey });
const server = await serveRelay(relay, { port: 0, host: '127.0.0.1' });
let requests = 0;
server.server.on('request', () => requests++);
process.on('message', async (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage(), requests });
  if (m === 'close') {
    await server.close();
    process.exit(0);
  }
});
process.send({ url: server.url, prefix: relay.prefix });
