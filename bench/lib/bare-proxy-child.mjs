#!/usr/bin/env node
// The floors of bench/relay-overhead.mjs: bare node:http proxies written by hand, each in its own
// process like the relay. Same IPC protocol as relay-child.mjs: sends `{ url, prefix }`, answers
// `'cpu'`, exits on `'close'`. Modes (third argument; the fourth names the robots a user may reach):
// - `node` (default): a pass-through with no checks at all (no allowlist, validation, secret scan or
//   logging): adds the bearer key and pipes the request and the answer socket to socket over a
//   keep-alive agent. The floor of any relay process, a reference row.
// - `express`: the same pass-through as the last handler of an Express app with the Express recipe's
//   middleware (`express.json()`).
// - `users`: the same job as the relay for a user, by hand and without validation: the app's own
//   `authorize` hook (bench-users.mjs, the one the relay runs), the robot check, and per request
//   - E13: the report window (`start_time`/`end_time` defaults, 7 days), the upstream JSON read
//     whole, parsed, filtered to the sessions labelled with the user and granted to them, `totals`
//     and the span recomputed over those, and serialised again;
//   - a request naming a session (E19's `session_id`): the grant check by hand (node:crypto HMAC,
//     the relay's scheme: grant.ts), 404 if it fails, else piped through as it comes;
//   and one log entry per request to the app's logger. The floor of the user rows.
// - `express-users`: `users` as the last handler of the same Express app.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { authorize, logger, logs, USERS_SECRET } from './bench-users.mjs';

const [upstream, apiKey, mode = 'node', robotList = ''] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new http.Agent({ keepAlive: true });
const PREFIX = '/api/voice';
let requests = 0;

const upstreamRequest = (req, path, onAnswer) => {
  const headers = { ...req.headers, host: target.host, authorization: `Bearer ${apiKey}` };
  return http.request({ hostname: target.hostname, port: target.port, path, method: req.method, headers, agent }, onAnswer);
};

const passThrough = (req, res, path = req.url.slice(PREFIX.length)) => {
  const out = upstreamRequest(req, path, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
};

// --- the user job, by hand ---------------------------------------------------------------------
const robots = new Set(robotList.split(',').filter(Boolean));
const DAY_MS = 86_400_000;
const GRANT_KEY = createHmac('sha256', USERS_SECRET).update('kb-voice relay session grant v2 (user, robot)').digest();
const USAGE_PATH = /^\/v1\/robots\/([^/]+)\/realtime-usage$/;
const SESSION_PATH = /^\/v1\/([^/]+)\/session\.messages$/;

/** The relay's grant check (grant.ts): bytes 8–15 of the v8 UUID are the HMAC of nonce ‖ len ‖ robot ‖ user. */
function granted(sessionId, user, robot) {
  if (typeof sessionId !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(sessionId)) return false;
  const bytes = Buffer.from(sessionId.replace(/-/g, ''), 'hex');
  const robotBytes = Buffer.from(robot);
  const mac = createHmac('sha256', GRANT_KEY).update(Buffer.concat([bytes.subarray(0, 8), Buffer.from([robotBytes.length]), robotBytes, Buffer.from(user)])).digest();
  mac[0] = (mac[0] & 0x3f) | 0x80;
  return mac.subarray(0, 8).equals(bytes.subarray(8, 16));
}

const replyJson = (res, status, value) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  return status;
};

/** E13 for one user: window, read whole, filter, recompute, serialise (no schema validation). */
function usage(req, res, url, user, robot) {
  const now = Date.now();
  if (!url.searchParams.has('end_time')) url.searchParams.set('end_time', new Date(now).toISOString());
  if (!url.searchParams.has('start_time')) url.searchParams.set('start_time', new Date(Date.parse(url.searchParams.get('end_time')) - 7 * DAY_MS).toISOString());
  return new Promise((resolve) => {
    const out = upstreamRequest(req, `${url.pathname}${url.search}`, (up) => {
      const chunks = [];
      up.on('data', (c) => chunks.push(c));
      up.on('end', () => {
        if (up.statusCode !== 200) return resolve(replyJson(res, 502, { detail: 'upstream' }));
        const report = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const sessions = report.sessions.filter((s) => s.user_identifier === user && granted(s.session_id, user, robot));
        const totals = {};
        for (const key of Object.keys(report.totals ?? {})) totals[key] = key === 'session_count' ? sessions.length : sessions.reduce((a, s) => a + (typeof s[key] === 'number' ? s[key] : 0), 0);
        const created = sessions.map((s) => s.created_at).filter(Boolean).sort();
        resolve(replyJson(res, 200, { bot_id: report.bot_id, session_count: sessions.length, totals, sessions, ...(created.length ? { start_time: created[0], end_time: created.at(-1) } : {}) }));
      });
      up.on('error', () => resolve(replyJson(res, 502, { detail: 'upstream' })));
    });
    out.on('error', () => resolve(replyJson(res, 502, { detail: 'upstream' })));
    out.end();
  });
}

async function asUser(req, res) {
  const started = performance.now();
  const caller = await authorize({ headers: { get: (name) => req.headers[name] ?? null } });
  const url = new URL(req.url.slice(PREFIX.length), 'http://floor');
  let status;
  const usageMatch = USAGE_PATH.exec(url.pathname);
  const robot = usageMatch?.[1] ?? SESSION_PATH.exec(url.pathname)?.[1];
  if (!caller) status = replyJson(res, 401, { detail: 'not signed in' });
  else if (!robot || !robots.has(robot)) status = replyJson(res, 404, { detail: 'Not Found' });
  else if (usageMatch) status = await usage(req, res, url, caller.userIdentifier, robot);
  else if (!granted(url.searchParams.get('session_id'), caller.userIdentifier, robot)) status = replyJson(res, 404, { detail: 'Session not found' });
  else status = (passThrough(req, res, `${url.pathname}${url.search}`), 200);
  logger({ level: 'info', method: req.method, path: url.pathname, status, role: caller?.role, durationMs: performance.now() - started });
}

const handler = mode === 'users' || mode === 'express-users' ? asUser : (req, res) => passThrough(req, res);
const counted = (req, res) => {
  requests++;
  handler(req, res);
};
let server;
if (mode === 'express' || mode === 'express-users') {
  const { default: express } = await import('express');
  const app = express();
  app.use(express.json());
  // Express strips no mount path here (app.use without one): req.url is the whole target.
  app.use(counted);
  server = http.createServer(app);
} else {
  server = http.createServer(counted);
}
server.keepAliveTimeout = 5000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
process.on('message', (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage(), requests, logged: logs.count });
  if (m === 'close') {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  }
});
process.send({ url: `http://127.0.0.1:${server.address().port}`, prefix: PREFIX });
