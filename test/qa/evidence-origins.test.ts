import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachEvidence, recordingAllowed } from '../../qa/src/evidence.js';
import type { CallReport } from '../../qa/src/types.js';

// issue 46: attachEvidence downloaded every report.audio[].url from the runner, so a service (or
// anything that shaped its report) could make the runner fetch an internal address and put the
// answer into the test's artifacts. Only the relay's origin and the service's own ones now.

function serve(handler: http.RequestListener): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((done) => server.close(() => done())),
  })));
}

let relay: Awaited<ReturnType<typeof serve>>;
let storage: Awaited<ReturnType<typeof serve>>;
let internal: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  internal = await serve((_req, res) => res.end('SECRET of an internal service'));
  relay = await serve((req, res) => {
    if (req.url?.startsWith('/redirect')) {
      res.writeHead(302, { location: `${internal.url}/after-redirect` });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'audio/wav' });
    res.end('RIFF relay wav');
  });
  storage = await serve((_req, res) => res.end('RIFF storage wav'));
});
afterAll(async () => {
  await Promise.all([relay?.close(), storage?.close(), internal?.close()]);
});

const report = (urls: string[]): CallReport => ({
  sessionId: 's-1', aiId: 'robot', turns: [], usage: null, cost: null, quality: null, errors: {},
  audio: urls.map((url, i) => ({ segment_index: i, url, duration_ms: 1000 })),
} as unknown as CallReport);

describe('attachEvidence: which recordings the runner downloads', () => {
  it('the relay\'s origin and the named service origins only; not an internal address, not a redirect, not javascript:', async () => {
    const attached: Array<{ name: string; body: string }> = [];
    const testInfo = { attach: async (name: string, { body }: { body: Buffer | string }) => void attached.push({ name, body: String(body) }) };
    const evidence = await attachEvidence(
      testInfo as never, 1,
      report([`${relay.url}/audio/0.wav`, `${internal.url}/latest/meta-data`, `${storage.url}/rec/2.wav`, `${relay.url}/redirect`, 'javascript:alert(1)']),
      [], undefined,
      { startedAt: '2026-01-01T00:00:00.000Z', network: null, target: { relayUrl: `${relay.url}/api/voice`, emulator: false } },
      [storage.url],
    );
    const bodies = attached.map((a) => a.body).join('\n');
    expect(bodies).not.toContain('SECRET');
    expect(internal.hits).toEqual([]);
    expect(evidence.audio).toHaveLength(2); // the relay's and the storage's
    expect(bodies).toContain('RIFF relay wav');
    expect(bodies).toContain('RIFF storage wav');
    expect(evidence.error).toContain(`audio segment 1 not downloaded: its URL is not on the relay's or the service's origin (${internal.url}`);
    expect(evidence.error).toContain('audio segment 3 not downloaded: HTTP 302');
    expect(evidence.error).toContain('audio segment 4 not downloaded: its URL is not on the relay\'s or the service\'s origin (javascript: URL');
  });

  it('recordingAllowed compares whole origins (scheme, host and port), not prefixes', () => {
    expect(recordingAllowed('https://rec.example.com/a.wav', ['https://rec.example.com'])).toBe(true);
    expect(recordingAllowed('https://rec.example.com.evil.test/a.wav', ['https://rec.example.com'])).toBe(false);
    expect(recordingAllowed('http://rec.example.com/a.wav', ['https://rec.example.com'])).toBe(false);
    expect(recordingAllowed('https://rec.example.com:8443/a.wav', ['https://rec.example.com'])).toBe(false);
    expect(recordingAllowed('not a url', ['https://rec.example.com'])).toBe(false);
  });
});
