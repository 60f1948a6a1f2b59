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

/** Runs in the page; a string so that vitest's transform leaves its `import()` alone. */
const PAGE_SCRIPT = `(async () => {
  const { default: Peer } = await import('/simple-peer.js');
  const options = { trickle: false, channelName: 'kb-voice', config: { iceServers: [] } };
  const caller = new Peer({ ...options, initiator: true });
  const callee = new Peer(options);
  const failed = new Promise((_, reject) => {
    caller.on('error', reject);
    callee.on('error', reject);
    setTimeout(() => reject(new Error('no connection within 15 s')), 15000);
  });
  caller.on('signal', (offer) => callee.signal(offer));
  callee.on('signal', (answer) => caller.signal(answer));
  const decode = (data) => new TextDecoder().decode(data);
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
  const closed = new Promise((resolve) => callee.on('close', resolve));
  caller.destroy();
  await Promise.race([closed, failed]);
  const leaked = ['process', 'global', 'Buffer'].filter((name) => name in globalThis);
  return { received, label: caller.channelName, leaked };
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

  it('loads as an ES module and connects two peers that exchange data', async () => {
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

    const result = (await page.evaluate(PAGE_SCRIPT)) as {
      received: string[];
      label: string;
      leaked: string[];
    };

    expect(pageErrors).toEqual([]);
    expect(result.received).toEqual(['{"type":"ping"}', 'こんにちは']);
    expect(result.label).toBe('kb-voice');
    expect(result.leaked).toEqual([]);
    await page.close();
  });
});
