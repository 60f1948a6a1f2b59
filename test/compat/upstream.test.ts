import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { json, useUpstream, type Upstream } from './upstream.js';

// The fake upstream's isolation between tests: a request a test began (a client wrote it, the
// server had not yet read all of it) must not reach the next test, take its queued answer and count
// in its `seen`. Seen in a busy-core run (2026-12-07): time-budget's 'covers the retries' left its
// third request in flight, and the next test's `seen` had 2 requests instead of 1.

let up: Upstream;
useUpstream({}, (u) => {
  up = u;
});

let stale: Socket | undefined;

describe('useUpstream', () => {
  it('a test leaves a request half-written (its server has not read it all)', async () => {
    const { hostname, port } = new URL(up.url);
    stale = connect(Number(port), hostname);
    stale.on('error', () => undefined);
    await new Promise((resolve) => stale!.once('connect', resolve));
    stale.write('GET /stale HTTP/1.1\r\nhost: upstream\r\n');
  });

  it('the next test neither sees it nor loses its queued answer to it', async () => {
    up.next(json({ mine: true }));
    // The rest of the earlier test's request arrives now: answered (data) if it reached this test's
    // upstream, or its connection is gone (close).
    const settled = new Promise((resolve) => {
      stale!.once('data', resolve);
      stale!.once('close', resolve);
    });
    if (!stale!.destroyed) stale!.write('\r\n');
    await settled;
    stale!.destroy();
    const response = await fetch(`${up.url}/mine`);
    expect(await response.json()).toEqual({ mine: true });
    expect(up.seen.map((r) => r.path)).toEqual(['/mine']);
  });
});
