import { describe, expect, it } from 'vitest';
import { DeviceWatch, type DeviceList } from '../../../src/client/devices.js';
import { NetworkWatch } from '../../../src/client/network.js';
import { DEFAULT_RESUME_WINDOW_MS, ResumeStore } from '../../../src/client/resume-store.js';

// Issue 27: the effects behind devices, networks and resume-after-reload, on fake sources.

const device = (kind: MediaDeviceKind, deviceId: string, label = deviceId) => ({ kind, deviceId, label, groupId: `g-${deviceId}`, toJSON: () => ({}) }) as MediaDeviceInfo;

class FakeMediaDevices extends EventTarget {
  list: MediaDeviceInfo[] = [];
  pending: Array<(list: MediaDeviceInfo[]) => void> = [];
  manual = false;
  enumerateDevices(): Promise<MediaDeviceInfo[]> {
    if (!this.manual) return Promise.resolve([...this.list]);
    return new Promise((resolve) => this.pending.push(resolve));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('DeviceWatch', () => {
  it('lists audio inputs and outputs at start and after each devicechange, once per distinct list', async () => {
    const media = new FakeMediaDevices();
    media.list = [device('audioinput', 'default'), device('audiooutput', 'speakers'), device('videoinput', 'cam')];
    const seen: DeviceList[] = [];
    const watch = new DeviceWatch((d) => seen.push(d), media);
    watch.start();
    await settle();
    expect(seen).toEqual([{ inputs: [{ deviceId: 'default', label: 'default', groupId: 'g-default' }], outputs: [{ deviceId: 'speakers', label: 'speakers', groupId: 'g-speakers' }] }]);
    media.dispatchEvent(new Event('devicechange'));
    await settle();
    expect(seen).toHaveLength(1); // same list: nothing new to report
    media.list.push(device('audioinput', 'headset'), device('audiooutput', 'headset-out'));
    media.dispatchEvent(new Event('devicechange'));
    await settle();
    expect(seen.at(-1)!.inputs.map((d) => d.deviceId)).toEqual(['default', 'headset']);
    expect(seen.at(-1)!.outputs.map((d) => d.deviceId)).toEqual(['speakers', 'headset-out']);
    expect(Object.isFrozen(seen.at(-1)) && Object.isFrozen(seen.at(-1)!.inputs)).toBe(true);
    watch.close();
    media.list.pop();
    media.dispatchEvent(new Event('devicechange'));
    await settle();
    expect(seen).toHaveLength(2);
  });

  it('applies only the latest of overlapping enumerations, and none after close()', async () => {
    const media = new FakeMediaDevices();
    media.manual = true;
    const seen: DeviceList[] = [];
    const watch = new DeviceWatch((d) => seen.push(d), media);
    watch.start();
    media.dispatchEvent(new Event('devicechange'));
    const [older, newer] = media.pending.splice(0);
    newer!([device('audioinput', 'new')]);
    await settle();
    older!([device('audioinput', 'old')]);
    await settle();
    expect(seen.map((d) => d.inputs[0]!.deviceId)).toEqual(['new']);
    void watch.refresh();
    watch.close();
    media.pending.splice(0)[0]!([device('audioinput', 'late')]);
    await settle();
    expect(seen).toHaveLength(1);
  });

  it('does nothing without navigator.mediaDevices (Node) and survives a failing enumerateDevices', async () => {
    const seen: DeviceList[] = [];
    new DeviceWatch((d) => seen.push(d), undefined).start();
    const media = new FakeMediaDevices();
    media.enumerateDevices = () => Promise.reject(new Error('gone'));
    const watch = new DeviceWatch((d) => seen.push(d), media);
    watch.start();
    await watch.refresh();
    expect(seen).toEqual([]);
  });
});

describe('NetworkWatch', () => {
  function fakeNetwork() {
    const events = new EventTarget();
    const connection = new EventTarget();
    const state = { onLine: true };
    return { events, connection, state, source: { events, connection, onLine: () => state.onLine } };
  }

  it('reports offline, online and connection changes at once, and nothing after close()', () => {
    const net = fakeNetwork();
    const seen: string[] = [];
    const watch = new NetworkWatch({ offline: () => seen.push('offline'), changed: (cause) => seen.push(cause) }, net.source);
    watch.start();
    watch.start(); // idempotent: listeners are not doubled
    net.state.onLine = false;
    net.events.dispatchEvent(new Event('offline'));
    expect(watch.offline).toBe(true);
    // A change while offline is not news: `online` follows.
    net.connection.dispatchEvent(new Event('change'));
    net.state.onLine = true;
    net.events.dispatchEvent(new Event('online'));
    net.connection.dispatchEvent(new Event('change'));
    expect(seen).toEqual(['offline', 'online', 'network_change']);
    watch.close();
    net.events.dispatchEvent(new Event('offline'));
    net.connection.dispatchEvent(new Event('change'));
    expect(seen).toHaveLength(3);
  });

  it('works without navigator.connection (Safari, Firefox)', () => {
    const net = fakeNetwork();
    const seen: string[] = [];
    const watch = new NetworkWatch({ offline: () => seen.push('offline'), changed: (cause) => seen.push(cause) }, { ...net.source, connection: undefined });
    watch.start();
    net.events.dispatchEvent(new Event('offline'));
    expect(seen).toEqual(['offline']);
  });
});

describe('ResumeStore (sessionStorage kb-voice:<aiId>)', () => {
  class MemoryStorage {
    map = new Map<string, string>();
    getItem(k: string) { return this.map.get(k) ?? null; }
    setItem(k: string, v: string) { this.map.set(k, v); }
    removeItem(k: string) { this.map.delete(k); }
  }
  const setup = (windowMs?: number) => {
    const clock = { t: 1_000 };
    const storage = new MemoryStorage();
    const page = new EventTarget();
    const make = () => new ResumeStore('robot-1', () => clock.t, windowMs, storage, page);
    return { clock, storage, page, make };
  };

  it('keeps the live call under kb-voice:<aiId> and gives it back within the window (default 120000 ms)', () => {
    const { clock, storage, make } = setup();
    expect(DEFAULT_RESUME_WINDOW_MS).toBe(120_000);
    make().keep('s-1');
    expect(JSON.parse(storage.getItem('kb-voice:robot-1')!)).toEqual({ sessionId: 's-1', at: 1_000 });
    clock.t += 120_000;
    expect(make().take()).toBe('s-1');
    clock.t += 1;
    expect(make().take()).toBeUndefined();
    expect(storage.getItem('kb-voice:robot-1')).toBeNull(); // an expired entry is removed
  });

  it('counts the window from when the page left the call (pagehide)', () => {
    const { clock, page, make } = setup(10_000);
    const store = make();
    store.keep('s-2');
    clock.t += 60_000; // a long call
    page.dispatchEvent(new Event('pagehide'));
    clock.t += 9_000;
    expect(make().take()).toBe('s-2');
  });

  it('end() clears it; other robots have their own key', () => {
    const { storage, make } = setup();
    const store = make();
    store.keep('s-3');
    new ResumeStore('robot-2', () => 0, undefined, storage).keep('other');
    store.clear();
    expect(make().take()).toBeUndefined();
    expect(storage.getItem('kb-voice:robot-2')).not.toBeNull();
  });

  it('a garbled entry is removed; a storage that throws or is missing disables resuming without failing', () => {
    const { storage, make } = setup();
    storage.setItem('kb-voice:robot-1', '{not json');
    expect(make().take()).toBeUndefined();
    expect(storage.getItem('kb-voice:robot-1')).toBeNull();
    storage.setItem('kb-voice:robot-1', JSON.stringify({ sessionId: 42, at: 'x' }));
    expect(make().take()).toBeUndefined();
    const broken = { getItem: () => { throw new Error('SecurityError'); }, setItem: () => { throw new Error('QuotaExceededError'); }, removeItem: () => { throw new Error('SecurityError'); } };
    const store = new ResumeStore('r', () => 0, undefined, broken);
    expect(() => store.keep('s')).not.toThrow();
    expect(store.take()).toBeUndefined();
    expect(new ResumeStore('r', () => 0, undefined, undefined).take()).toBeUndefined();
    expect(() => new ResumeStore('r', () => 0, -1)).toThrow(RangeError);
  });
});
