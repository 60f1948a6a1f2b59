#!/usr/bin/env node
// A relay of bench/relay-overhead.mjs in its own process, as deployed (a relay is a separate
// server in front of the service). Modes (third argument):
// - `admin` (default): `createRelay` + `serveRelay`, no authorize hook (= admin), the bare library;
// - `users`: as apps run it for their users: an async `authorize` hook (reads the caller's cookie)
//   giving role `user`, a logger (entries built for every request), `robots`, a `secret`, served by
//   `serveRelay` (the node:http adapter); hook, logger and secret from bench-users.mjs, which the
//   same-work floor (bare-proxy-child.mjs `users`) runs too;
// - `express`: the same relay mounted with the Express recipe (docs/relay.md: express.json(), then
//   `toNodeHandler(relay)`).
// Run with fork(): sends `{ url, prefix }` once listening; answers each `'cpu'` message with
// `{ cpu: process.cpuUsage(), requests }` so the parent can take this process's CPU per request.
import { authorize, logger, logs, USERS_SECRET } from './bench-users.mjs';
import { loadRelay } from './kb.mjs';

// robotId: the robots a user may reach, comma-separated.
const [upstream, apiKey, mode = 'admin', robotId = ''] = process.argv.slice(2);
const { createRelay, serveRelay, toNodeHandler } = await loadRelay();

const asUsers = { robots: robotId.split(','), secret: USERS_SECRET, authorize, logger };
const relay = createRelay({ upstream, apiKey, ...(mode === 'admin' ? {} : asUsers) });

let requests = 0;
let url;
let stop;
if (mode === 'express') {
  const { default: express } = await import('express');
  const app = express();
  app.use(express.json());
  app.use(toNodeHandler(relay));
  const server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = 5000;
  server.on('request', () => requests++);
  url = `http://127.0.0.1:${server.address().port}`;
  stop = () => new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
} else {
  const server = await serveRelay(relay, { port: 0, host: '127.0.0.1' });
  server.server.on('request', () => requests++);
  url = server.url;
  stop = () => server.close();
}
process.on('message', async (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage(), requests, logged: logs.count });
  if (m === 'close') {
    await stop();
    process.exit(0);
  }
});
process.send({ url, prefix: relay.prefix });
