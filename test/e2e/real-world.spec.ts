/**
 * Calls that survive real devices, networks and tabs (issue 27), in Chromium against the emulator
 * and the relay on loopback. The conditions come from ./real-world/lab.ts (CDP and page hooks).
 */
import { expect, test } from '@playwright/test';
import { RealWorldLab } from './real-world/lab.js';
import { startRealWorldStack, type RealWorldStack } from './real-world/stack.js';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import { AUDIO_DIR } from './fixtures.js';

test.use({ launchOptions: chromiumLaunchOptions([`--use-file-for-fake-audio-capture=${AUDIO_DIR}/e2e-silence.wav`]) });

let stack: RealWorldStack;
test.beforeAll(async () => {
  stack = await startRealWorldStack();
});
test.afterAll(async () => {
  await stack?.close();
});

test('the lab reproduces each condition in Chromium (lost track, devices, offline, hidden, frozen, no setSinkId)', async ({ page, context }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  await page.evaluate(() => {
    const seen: string[] = ((window as { seen?: string[] }).seen = []);
    for (const type of ['online', 'offline']) window.addEventListener(type, () => seen.push(type));
    for (const type of ['visibilitychange', 'freeze', 'resume']) document.addEventListener(type, () => seen.push(type));
    navigator.mediaDevices.addEventListener('devicechange', () => seen.push('devicechange'));
  });
  const seen = () => page.evaluate(() => (window as { seen?: string[] }).seen!.splice(0));

  // A microphone track that ends as an unplugged device does: readyState ended and an `ended` event.
  await page.evaluate(() => navigator.mediaDevices.getUserMedia({ audio: true }));
  const endedState = page.evaluate(() => new Promise<string>((resolve) => {
    const track = window.__kbvLab.tracks.at(-1)!;
    track.addEventListener('ended', () => resolve(track.readyState), { once: true });
  }));
  await lab.endMicrophone();
  expect(await endedState).toBe('ended');
  expect(await lab.counts()).toMatchObject({ getUserMedia: 1 });

  await lab.setDevices([{ deviceId: 'usb', kind: 'audioinput', label: 'USB mic' }, { deviceId: 'bt', kind: 'audiooutput', label: 'Headset' }]);
  expect(await page.evaluate(async () => (await navigator.mediaDevices.enumerateDevices()).map((d) => `${d.kind}:${d.deviceId}`))).toEqual(['audioinput:usb', 'audiooutput:bt']);

  await RealWorldLab.setOffline(context, true);
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  await RealWorldLab.setOffline(context, false);
  expect(await lab.connectionChange()).toBe(true);

  await lab.setVisibility('hidden');
  expect(await page.evaluate(() => document.visibilityState)).toBe('hidden');
  // Frozen: no task runs until the page is thawed, so a 50 ms interval shows one long gap.
  await page.evaluate(() => {
    const w = window as { ticks?: number[] };
    w.ticks = [];
    setInterval(() => w.ticks!.push(performance.now()), 50);
  });
  await lab.freeze();
  await new Promise((resolve) => setTimeout(resolve, 800)); // the condition itself: frozen for 0.8 s
  await lab.unfreeze();
  const longestGap = await page.evaluate(() => {
    const t = (window as { ticks?: number[] }).ticks!;
    return Math.max(...t.slice(1).map((x, i) => x - t[i]!));
  });
  expect(longestGap).toBeGreaterThanOrEqual(700);
  await lab.setVisibility('visible');
  expect(await seen()).toEqual(['devicechange', 'offline', 'online', 'visibilitychange', 'freeze', 'resume', 'visibilitychange']);

  expect(await page.evaluate(() => 'setSinkId' in HTMLMediaElement.prototype)).toBe(true);
  await lab.removeSetSinkId();
  expect(await page.evaluate(() => 'setSinkId' in HTMLMediaElement.prototype)).toBe(false);
});
