/**
 * Real-world conditions for Chromium end-to-end tests (issue 27): what a user's device, network and
 * tab do to a call, reproduced with Playwright and the DevTools protocol (CDP).
 *
 * - Microphone lost: the page's getUserMedia tracks are recorded; `endMicrophone` stops the newest
 *   live one and fires `ended` on it, exactly what Chromium does when a device is unplugged or taken
 *   (a page's own `stop()` fires no `ended`).
 * - Devices: `setDevices` replaces what `enumerateDevices()` lists and fires `devicechange`; with
 *   no list set, the browser's own (fake) devices are listed.
 * - Output devices: `removeSetSinkId` deletes `HTMLMediaElement.prototype.setSinkId` (browsers without it).
 * - Network: `context.setOffline` (CDP network emulation: `navigator.onLine`, `offline`/`online`
 *   events, HTTP refused; WebRTC's UDP is not cut); `connectionChange` fires `change` on
 *   `navigator.connection` (a Wi-Fi to cellular switch).
 * - Tab: `setVisibility` overrides `document.visibilityState`/`hidden` and fires `visibilitychange`
 *   (headless pages are always visible). `freeze`/`unfreeze`: Chrome freezes background tabs (no
 *   task runs). CDP `Page.setWebLifecycleState` does that only to a hidden tab, and a headless tab
 *   is never hidden (not even minimized: measured, timers kept running), so the page's JavaScript is
 *   also paused with CDP `Debugger.pause` — no timer, event or callback runs until `unfreeze`, then
 *   what queued up runs at once, as in a thawed tab; the network and WebRTC stack keep running in
 *   the browser as they do for a frozen tab. `freeze`/`resume` events are fired around it.
 * - Counters: RTCPeerConnection constructions and RTCRtpSender.replaceTrack calls.
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';

/** A device as `enumerateDevices()` lists it. */
export interface FakeDevice {
  deviceId: string;
  kind: 'audioinput' | 'audiooutput' | 'videoinput';
  label: string;
  groupId?: string;
}

/** What the page-side hooks counted (see {@link RealWorldLab.counts}). */
export interface LabCounts {
  peerConnections: number;
  replaceTrack: number;
  getUserMedia: number;
  /** `performance.now()` of the last replaceTrack call (null before any). */
  lastReplaceTrackAt: number | null;
}

interface PageLab {
  counts: LabCounts;
  tracks: MediaStreamTrack[];
  devices: FakeDevice[] | null;
}

declare global {
  interface Window {
    __kbvLab: PageLab;
  }
}

/** Runs in the page before any of its scripts (page.addInitScript). */
function installHooks(): void {
  const lab: PageLab = { counts: { peerConnections: 0, replaceTrack: 0, getUserMedia: 0, lastReplaceTrackAt: null }, tracks: [], devices: null };
  window.__kbvLab = lab;

  const Native = window.RTCPeerConnection;
  class CountedPeerConnection extends Native {
    constructor(config?: RTCConfiguration) {
      super(config);
      lab.counts.peerConnections++;
    }
  }
  window.RTCPeerConnection = CountedPeerConnection as typeof RTCPeerConnection;

  const replaceTrack = RTCRtpSender.prototype.replaceTrack;
  RTCRtpSender.prototype.replaceTrack = function (this: RTCRtpSender, track: MediaStreamTrack | null) {
    lab.counts.replaceTrack++;
    lab.counts.lastReplaceTrackAt = performance.now();
    return replaceTrack.call(this, track);
  };

  const media = navigator.mediaDevices;
  const getUserMedia = media.getUserMedia.bind(media);
  media.getUserMedia = async (constraints?: MediaStreamConstraints) => {
    lab.counts.getUserMedia++;
    const stream = await getUserMedia(constraints);
    lab.tracks.push(...stream.getAudioTracks());
    return stream;
  };
  const enumerateDevices = media.enumerateDevices.bind(media);
  media.enumerateDevices = async () => {
    if (!lab.devices) return enumerateDevices();
    return lab.devices.map((d) => ({ groupId: '', ...d, toJSON() { return { ...d }; } }) as MediaDeviceInfo);
  };
}

/** Page-side controls and counters for one Playwright page. */
export class RealWorldLab {
  private cdp: CDPSession | undefined;

  private constructor(readonly page: Page) {}

  /** Installs the hooks; call before the page loads (`page.goto`). */
  static async install(page: Page): Promise<RealWorldLab> {
    await page.addInitScript(installHooks);
    return new RealWorldLab(page);
  }

  counts(): Promise<LabCounts> {
    return this.page.evaluate(() => ({ ...window.__kbvLab.counts }));
  }

  /** Ends the newest live microphone track as a lost device does; resolves to its id and the page's `performance.now()` then. */
  endMicrophone(): Promise<{ id: string; at: number }> {
    return this.page.evaluate(() => {
      const track = [...window.__kbvLab.tracks].reverse().find((t) => t.readyState === 'live');
      if (!track) throw new Error('no live microphone track to end');
      const at = performance.now();
      track.stop();
      track.dispatchEvent(new Event('ended'));
      return { id: track.id, at };
    });
  }

  /** Lists these devices from now on and fires `devicechange`. */
  setDevices(devices: FakeDevice[]): Promise<void> {
    return this.page.evaluate((list) => {
      window.__kbvLab.devices = list;
      navigator.mediaDevices.dispatchEvent(new Event('devicechange'));
    }, devices);
  }

  /** Makes the page a browser without `setSinkId` (e.g. Safari before 18.4, Firefox without its pref). */
  removeSetSinkId(): Promise<void> {
    return this.page.evaluate(() => {
      delete (HTMLMediaElement.prototype as { setSinkId?: unknown }).setSinkId;
    });
  }

  /** A network change without going offline (`navigator.connection` fires `change`); false when the browser has no `navigator.connection`. */
  connectionChange(): Promise<boolean> {
    return this.page.evaluate(() => {
      const connection = (navigator as { connection?: EventTarget }).connection;
      connection?.dispatchEvent(new Event('change'));
      return Boolean(connection);
    });
  }

  /** Shows or hides the tab as the page sees it (`visibilityState`, `hidden`, `visibilitychange`). */
  setVisibility(state: 'hidden' | 'visible'): Promise<void> {
    return this.page.evaluate((s) => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
  }

  /** Freezes the page as Chrome freezes a background tab (no timers, no tasks) until {@link unfreeze}. */
  async freeze(): Promise<void> {
    const cdp = await this.session();
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    await this.page.evaluate(() => document.dispatchEvent(new Event('freeze')));
    await cdp.send('Debugger.enable');
    const paused = new Promise((resolve) => cdp.once('Debugger.paused', resolve));
    await cdp.send('Debugger.pause');
    // Pauses at the next JavaScript the page runs; a page with a call runs some every few ms.
    await paused;
  }

  async unfreeze(): Promise<void> {
    const cdp = await this.session();
    await cdp.send('Debugger.resume');
    await cdp.send('Debugger.disable');
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    await this.page.evaluate(() => document.dispatchEvent(new Event('resume')));
  }

  /** Offline (or back online) for every page of the context. */
  static setOffline(context: BrowserContext, offline: boolean): Promise<void> {
    return context.setOffline(offline);
  }

  private async session(): Promise<CDPSession> {
    this.cdp ??= await this.page.context().newCDPSession(this.page);
    return this.cdp;
  }
}
