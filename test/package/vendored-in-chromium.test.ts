import { chromium, type Browser } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumLaunchOptions, findChromium } from '../../scripts/chromium.mjs';
import { distPath, requireDist } from './built-dist.js';

// The vendored simple-peer in a real browser page, loaded as a plain ES module with no bundler,
// import map or polyfill: if any shim were missing it would throw "global is not defined" /
// "process is not defined" / fail to resolve `events` or `buffer`. Two peers in the page connect
// over Chromium's own WebRTC (no trickle, 'kb-voice' channel) and exchange messages both ways.
// Without any Chromium this is skipped here; `npm test`'s e2e step then fails saying how to get one.

const ORIGIN = 'http://kb-voice.test';

/**
 * Runs in the page; a string so that vitest's transform leaves its `import()` alone. `hangUp` is how
 * the caller ends: `destroy` (simple-peer closes the channel, then the peer connection) or `abort`
 * (the peer connection alone, as a crashed or killed tab would).
 *
 * The callee's side of a hang-up: Chromium sends the channel's stream reset and then, on
 * `pc.close()`, an SCTP ABORT. Whichever the callee processes first decides what it sees: a plain
 * channel `close`, or an `error` event "OperationError: User-Initiated Abort, reason=Close called"
 * (simple-peer's ERR_DATA_CHANNEL) followed by `close`. Load decides the order, so the callee's
 * errors during the hang-up are recorded, not treated as a failure of the connection: the check is
 * that the callee closes, and that any error it reports then is that abort.
 */
const pageScript = (hangUp: 'destroy' | 'abort') => `(async () => {
  const { default: Peer } = await import('/simple-peer.js');
  const options = { trickle: false, channelName: 'kb-voice', config: { iceServers: [] } };
  const caller = new Peer({ ...options, initiator: true });
  const callee = new Peer(options);
  let connected = false;
  const failed = new Promise((_, reject) => {
    caller.on('error', (e) => connected || reject(e));
    callee.on('error', (e) => connected || reject(e));
    setTimeout(() => reject(new Error('no connection within 15 s')), 15000);
  });
  caller.on('signal', (offer) => callee.signal(offer));
  callee.on('signal', (answer) => caller.signal(answer));
  // Text messages arrive as text (scripts/shims/duplex.cjs): anything else would fail the comparison.
  const decode = (data) => (typeof data === 'string' ? data : 'not text: ' + Object.prototype.toString.call(data));
  const atCallee = new Promise((resolve) => callee.once('data', (d) => resolve(decode(d))));
  const atCaller = new Promise((resolve) => caller.once('data', (d) => resolve(decode(d))));
  await Promise.race([
    Promise.all([
      new Promise((resolve) => caller.on('connect', resolve)),
      new Promise((resolve) => callee.on('connect', resolve)),
    ]),
    failed,
  ]);
  caller.send('{"type":"ping"}');
  callee.send('こんにちは');
  const received = await Promise.race([Promise.all([atCallee, atCaller]), failed]);
  connected = true;
  const closingErrors = [];
  callee.on('error', (e) => closingErrors.push({ code: e.code, message: String(e.message) }));
  const closed = new Promise((resolve) => callee.on('close', resolve));
  if (${JSON.stringify(hangUp)} === 'destroy') caller.destroy();
  else caller._pc.close();
  await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('callee not closed within 15 s')), 15000))]);
  if (!caller.destroyed) caller.destroy();
  const leaked = ['process', 'global', 'Buffer'].filter((name) => name in globalThis);
  return { received, label: caller.channelName, leaked, closingErrors };
})()`;
const found = findChromium();

describe.skipIf(found === null)('vendored simple-peer in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    requireDist('vendor/simple-peer.js');
    // Raw host candidates instead of mDNS names: the page never asks for a microphone (which
    // would lift the mDNS hiding), and a container has no multicast to resolve .local names.
    browser = await chromium.launch(
      chromiumLaunchOptions(['--disable-features=WebRtcHideLocalIpsWithMdns']),
    );
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const hangUp of ['destroy', 'abort'] as const) {
    it(`loads as an ES module, connects two peers that exchange data, and the callee sees the caller's ${hangUp}`, async () => {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      const vendor = await readFile(distPath('vendor/simple-peer.js'), 'utf8');
      await page.route(`${ORIGIN}/**`, (route) => {
        const url = new URL(route.request().url());
        if (url.pathname === '/simple-peer.js') {
          return route.fulfill({ contentType: 'text/javascript', body: vendor });
        }
        return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>vendored</title>' });
      });
      await page.goto(`${ORIGIN}/`);

      const result = (await page.evaluate(pageScript(hangUp))) as {
        received: string[];
        label: string;
        leaked: string[];
        closingErrors: { code: string; message: string }[];
      };

      expect(pageErrors).toEqual([]);
      expect(result.received).toEqual(['{"type":"ping"}', 'こんにちは']);
      expect(result.label).toBe('kb-voice');
      expect(result.leaked).toEqual([]);
      // At most the remote hang-up's abort, never another error.
      for (const error of result.closingErrors) {
        expect(error).toEqual({ code: 'ERR_DATA_CHANNEL', message: expect.stringMatching(/User-Initiated Abort, reason=Close called/) });
      }
      await page.close();
    });
  }

});
