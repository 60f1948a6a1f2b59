/**
 * Calls that survive real devices, networks and tabs (issue 27), in Chromium against the emulator
 * and the relay on loopback. The conditions come from ./real-world/lab.ts (CDP and page hooks).
 */
import { expect, test, type Page } from '@playwright/test';
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
  // Barriers: the interval has ticked before the freeze (on a busy machine its first tick could come
  // after the pause, and then every recorded tick would be after the thaw), and again after the thaw.
  const ticks = () => page.evaluate(() => (window as { ticks?: number[] }).ticks!.length);
  await expect.poll(ticks).toBeGreaterThanOrEqual(2);
  await lab.freeze();
  await new Promise((resolve) => setTimeout(resolve, 800)); // the condition itself: frozen for 0.8 s
  await lab.unfreeze();
  const thawed = await ticks();
  await expect.poll(ticks).toBeGreaterThan(thawed);
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

// ---------------------------------------------------------------- the library under these conditions

type Snap = { status: string; state: { status: string; cause?: string }; sessionId?: string; resumed: boolean; turns: Array<{ id: number; answer: string }>; devices?: { inputs: Array<{ deviceId: string; label: string }>; outputs: Array<{ deviceId: string; label: string }> } };

async function startCall(page: Page, options: Record<string, unknown> = {}): Promise<string> {
  const { sessionId } = await page.evaluate((init) => window.harness.start(init), { relayUrl: stack.relayUrl, aiId: stack.emulator.fixtures.robotId, options });
  return sessionId!;
}
const snapshot = (page: Page) => page.evaluate(() => window.harness.snapshot() as unknown) as Promise<Snap>;
const ask = (page: Page, text: string) => page.evaluate((t) => window.harness.ask(t), text);
const events = (page: Page, type: string) => page.evaluate((t) => window.harness.events.filter((e) => e.type === t).map((e) => e.data), type) as Promise<any[]>;

interface Signal {
  at: number;
  method: string;
  /** The ICE username fragment the request carries (an offer's SDP, a PATCH's sdpfrag). */
  ufrag: string | undefined;
}

/**
 * Records the page's signaling requests (offers and PATCHes of the session resource) from now on,
 * with their time. Start it before the call: `reconnections()` leaves out the call's own offer and
 * the trickle of its first ICE generation (PATCHes with the offer's ufrag, which on a busy machine
 * can still go out after the call is connected), so what remains is what a reconnection sent: a
 * new offer, or an ICE restart's PATCH with new credentials.
 */
function recordSignaling(page: Page): { reconnections(): Signal[] } {
  const seen: Signal[] = [];
  page.on('request', (r) => {
    if (!r.url().includes('/realtime/sessions') || r.method() === 'OPTIONS') return;
    const body = r.postData() ?? '';
    const ufrag = /a=ice-ufrag:([^\s"\\]+)/.exec(body)?.[1];
    seen.push({ at: Date.now(), method: r.method(), ufrag });
  });
  return {
    reconnections() {
      const first = seen.findIndex((s) => s.method === 'POST');
      const original = seen[first]?.ufrag;
      return seen.filter((s, i) => i !== first && !(s.method === 'PATCH' && s.ufrag === original));
    },
  };
}

/** The call was restored: connected again, same session, and it answers. */
async function expectCallGoesOn(page: Page, sessionId: string): Promise<void> {
  await expect.poll(async () => (await snapshot(page)).status).toBe('connected');
  expect((await snapshot(page)).sessionId).toBe(sessionId);
  expect((await ask(page, 'How long is the warranty?')).answer).toMatch(/warranty/);
}

test.afterEach(async ({ page }) => {
  await page.evaluate(() => window.harness?.end()).catch(() => undefined);
});

test('an ended microphone track is replaced by the default one within 1 s, on the same peer connection', async ({ page }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  await startCall(page);
  expect(await lab.counts()).toMatchObject({ peerConnections: 1, getUserMedia: 1, replaceTrack: 0 });

  const ended = await lab.endMicrophone();
  await expect.poll(async () => (await lab.counts()).replaceTrack).toBe(1);
  const counts = await lab.counts();
  expect(counts.lastReplaceTrackAt! - ended.at).toBeLessThan(1000);
  expect(counts).toMatchObject({ peerConnections: 1, getUserMedia: 2 });
  expect((await events(page, 'error')).map((e) => e.code)).toEqual(['device_lost']);
  // The new track is live and is what the connection sends; the call goes on.
  expect(await page.evaluate(() => window.__kbvLab.tracks.at(-1)!.readyState)).toBe('live');
  expect((await snapshot(page)).status).toBe('connected');
  expect((await ask(page, 'How long is the warranty?')).answer).toMatch(/warranty/);
});

test('offline shows reconnecting (cause offline); back online restarts ICE within 2 s and the call goes on', async ({ page, context }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  const signaling = recordSignaling(page);
  const sessionId = await startCall(page, { iceRestart: true });

  await RealWorldLab.setOffline(context, true);
  await expect.poll(async () => (await snapshot(page)).state).toMatchObject({ status: 'reconnecting', cause: 'offline' });
  expect(signaling.reconnections()).toEqual([]); // nothing is tried while there is no network

  const back = Date.now();
  await RealWorldLab.setOffline(context, false);
  await expect.poll(() => signaling.reconnections().length).toBeGreaterThan(0);
  const first = signaling.reconnections()[0]!;
  expect(first.at - back).toBeLessThan(2000);
  expect(first.method).toBe('PATCH'); // an ICE restart of the same connection, not a new offer
  await expectCallGoesOn(page, sessionId);
  expect((await lab.counts()).peerConnections).toBe(1);
});

test('a network change (navigator.connection) restores the connection at once (default transport: a new offer), without waiting for missed pings', async ({ page }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  const signaling = recordSignaling(page);
  const sessionId = await startCall(page);
  const changed = Date.now();
  expect(await lab.connectionChange()).toBe(true);
  await expect.poll(() => signaling.reconnections().length).toBeGreaterThan(0);
  expect(signaling.reconnections()[0]!.at - changed).toBeLessThan(2000);
  await expectCallGoesOn(page, sessionId);
  const reconnecting = (await events(page, 'state')).filter((s) => s.status === 'reconnecting');
  expect(reconnecting[0]).toMatchObject({ cause: 'network_change' });
});

test('a hidden, frozen and thawed tab keeps its call connected and answering', async ({ page }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  const sessionId = await startCall(page);
  await lab.setVisibility('hidden');
  await lab.freeze();
  await new Promise((resolve) => setTimeout(resolve, 4000)); // the condition: frozen 4 s (16 heartbeat periods)
  await lab.unfreeze();
  expect((await ask(page, 'How long is the warranty?')).answer).toMatch(/warranty/);
  await lab.setVisibility('visible');
  const snap = await snapshot(page);
  expect(snap).toMatchObject({ status: 'connected', sessionId });
  expect((await events(page, 'state')).map((s) => s.status)).toEqual(['connecting', 'connected']);
});

test('microphone: false connects with no getUserMedia call; typed questions get spoken, captioned answers', async ({ page }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  await startCall(page, { microphone: false });
  expect((await lab.counts()).getUserMedia).toBe(0);
  const turn = await ask(page, 'How long is the warranty?');
  expect(turn).toMatchObject({ id: 1, input: 'text' });
  expect(turn.answer).toMatch(/warranty/);
  // Spoken: the answer's audio track arrived on a receive-only transceiver.
  expect(await page.evaluate(() => window.harness.session!.remoteStream?.getAudioTracks().length)).toBe(1);
  expect(await page.evaluate(() => window.harness.session!.getSnapshot().turns[0]!.firstResponseMs)).toBeGreaterThan(0);
});

test('a reload with resume: true continues the same session: same id, turn ids going on, resumed', async ({ page }) => {
  await RealWorldLab.install(page);
  await stack.open(page);
  const sessionId = await startCall(page, { resume: true });
  expect((await ask(page, 'How long is the warranty?')).id).toBe(1);
  const key = `kb-voice:${stack.emulator.fixtures.robotId}`;
  expect(JSON.parse((await page.evaluate((k) => sessionStorage.getItem(k), key))!)).toMatchObject({ sessionId });

  await page.reload();
  await page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
  expect(await startCall(page, { resume: true })).toBe(sessionId);
  expect((await snapshot(page)).resumed).toBe(true);
  expect((await ask(page, 'How do I descale it?')).id).toBe(2);

  await page.evaluate(() => window.harness.session!.end({ mode: 'immediate' }));
  expect(await page.evaluate((k) => sessionStorage.getItem(k), key)).toBeNull();
});

test('devices are listed and followed (devicechange); setOutputDevice routes the answer with setSinkId', async ({ page }) => {
  const lab = await RealWorldLab.install(page);
  await stack.open(page);
  await startCall(page, { audioElement: true });
  // Listed once the microphone is open (enumerateDevices answers asynchronously).
  await expect.poll(async () => (await snapshot(page)).devices?.inputs.length ?? 0).toBeGreaterThan(0);
  const devices = (await snapshot(page)).devices!;
  const output = devices.outputs.find((d) => d.deviceId !== 'default') ?? devices.outputs[0];
  const target = output?.deviceId ?? '';
  expect(await page.evaluate((id) => window.harness.setOutputDevice(id), target)).toBeNull();
  expect(await page.evaluate(() => (document.getElementById('answer') as HTMLAudioElement & { sinkId: string }).sinkId)).toBe(target);
  expect(await page.evaluate(() => window.harness.setOutputDevice('no-such-device'))).toBe('device_unavailable');

  await lab.setDevices([{ deviceId: 'usb', kind: 'audioinput', label: 'USB microphone' }, { deviceId: 'bt', kind: 'audiooutput', label: 'Bluetooth headset' }]);
  await expect.poll(async () => (await snapshot(page)).devices).toEqual({
    inputs: [{ deviceId: 'usb', label: 'USB microphone', groupId: '' }],
    outputs: [{ deviceId: 'bt', label: 'Bluetooth headset', groupId: '' }],
  });

  await lab.removeSetSinkId();
  expect(await page.evaluate(() => window.harness.setOutputDevice(''))).toBe('not_supported');
});
