#!/usr/bin/env node
// The load of bench/lib/together.mjs, a SEPARATE process like load-child.mjs: on each IPC message
// `{ targets: [{ url, headers }], rate, connections, durationS }` it loads every target at once, each
// at the same fixed offered rate (requests/s, open loop), and answers `{ completed: [n…], failed: [n…] }`
// in the targets' order. One event loop drives them all, so no target is favoured by a load of its own.
import autocannon from 'autocannon';
import { isLoopbackHttp } from './common.mjs';
import { loadSchemas } from './kb.mjs';

const { statusClass } = await loadSchemas();

process.on('message', (job) => {
  for (const t of job.targets) {
    if (!isLoopbackHttp(t.url)) {
      process.send({ error: `together-child: a loopback http URL is required (${t.url})` });
      return;
    }
  }
  const completed = job.targets.map(() => 0);
  const failed = job.targets.map(() => 0);
  let left = job.targets.length;
  job.targets.forEach((t, i) => {
    const instance = autocannon(
      { url: t.url, headers: t.headers ?? {}, connections: job.connections, pipelining: 1, duration: job.durationS, overallRate: job.rate, timeout: 10 },
      (err, result) => {
        if (err) failed[i]++;
        failed[i] += result?.errors ?? 0;
        if (--left === 0) process.send({ completed, failed });
      },
    );
    instance.on('response', (_client, statusCode) => {
      if (statusClass(statusCode) === 'success') completed[i]++;
      else failed[i]++;
    });
  });
});
process.send({ ready: true });
