#!/usr/bin/env node
// Load generator run as a SEPARATE process (so the load does not share the server's event loop):
// `node bench/lib/load-child.mjs '<json options>'` runs autocannon once and prints one JSON line.
//
// autocannon's own latency histogram stores whole milliseconds, too coarse to see a sub-ms relay
// overhead, so every response's time (fractional ms, from its 'response' event) is kept here and
// the percentiles are computed from those.
import autocannon from 'autocannon';
import { isLoopbackHttp } from './common.mjs';
import { loadSchemas } from './kb.mjs';
import { summarize } from './stats.mjs';

const { statusClass } = await loadSchemas();

const opts = JSON.parse(process.argv[2] ?? '{}');
if (!opts.url || !isLoopbackHttp(opts.url)) {
  console.error('load-child: a loopback http URL is required');
  process.exit(2);
}

const times = [];
let non2xx = 0;
const instance = autocannon(
  {
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    connections: opts.connections ?? 10,
    pipelining: 1,
    duration: opts.durationS ?? 5,
    // Fixed offered rate (requests/s over all connections) for the latency probe; absent = closed loop.
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    timeout: 10,
  },
  (err, result) => {
    if (err) {
      console.error('load-child:', err);
      process.exit(1);
    }
    const seconds = (result.duration ?? opts.durationS ?? 5);
    const completed = times.length + non2xx;
    process.stdout.write(
      JSON.stringify({
        url: opts.url,
        connections: result.connections,
        durationS: seconds,
        requests2xx: times.length,
        non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        rps: times.length / seconds,
        completedRps: completed / seconds,
        latencyMs: summarize(times),
      }) + '\n',
    );
  },
);
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  if (statusClass(statusCode) === 'success') times.push(responseTime);
  else non2xx++;
});
