#!/usr/bin/env node
// The floor of bench/relay-overhead.mjs: a bare node:http pass-through proxy with no checks at all
// (no allowlist, validation, secret scan or logging), in its own process like the relay: it adds
// the bearer key and pipes the request and the answer socket to socket over a keep-alive agent.
// Same IPC protocol as relay-child.mjs: sends `{ url, prefix }`, answers `'cpu'`, exits on `'close'`.
// Mode (third argument) `express`: the same proxy as the last handler of an Express app with the
// Express recipe's middleware (`express.json()`), the floor of a relay mounted in Express: what
// Express itself costs per request is the app's choice of framework, not the relay's.
import http from 'node:http';

const [upstream, apiKey, mode = 'node'] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new http.Agent({ keepAlive: true });
const PREFIX = '/api/voice';
let requests = 0;
const proxy = (req, res) => {
  requests++;
  const headers = { ...req.headers, host: target.host, authorization: `Bearer ${apiKey}` };
  const out = http.request({ hostname: target.hostname, port: target.port, path: req.url.slice(PREFIX.length), method: req.method, headers, agent }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
};
let server;
if (mode === 'express') {
  const { default: express } = await import('express');
  const app = express();
  app.use(express.json());
  // Express strips no mount path here (app.use without one): req.url is the whole target.
  app.use(proxy);
  server = http.createServer(app);
} else {
  server = http.createServer(proxy);
}
server.keepAliveTimeout = 5000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
process.on('message', (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage(), requests });
  if (m === 'close') {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  }
});
process.send({ url: `http://127.0.0.1:${server.address().port}`, prefix: PREFIX });
