import type { SessionEffect } from './effects.js';
/** One audio device as the session lists it (labels are empty until the page may use the microphone). */
export interface AudioDevice {
  readonly deviceId: string;
  readonly label: string;
  readonly groupId: string;
}

/** The audio devices the browser lists now: `snapshot.devices` and the `devices` event. */
export interface DeviceList {
  readonly inputs: readonly AudioDevice[];
  readonly outputs: readonly AudioDevice[];
}

/** The part of `navigator.mediaDevices` the watch uses. */
export type DeviceSource = Pick<MediaDevices, 'enumerateDevices' | 'addEventListener' | 'removeEventListener'>;

const summary = (d: MediaDeviceInfo): AudioDevice => Object.freeze({ deviceId: d.deviceId, label: d.label, groupId: d.groupId });

/**
 * Follows the audio devices during a call (`devicechange`: a headset plugged in or switched off)
 * and reports each new list once. Enumerations that overlap apply in order: only the latest
 * counts. An effect: it reports, the session keeps the list.
 */
export class DeviceWatch implements SessionEffect {
  private list: DeviceList | undefined;
  private asked = 0;
  private closed = false;
  private readonly onChange = () => void this.refresh();

  constructor(
    private readonly report: (devices: DeviceList) => void,
    private readonly source: DeviceSource | undefined = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices,
  ) {}

  get current(): DeviceList | undefined {
    return this.list;
  }

  /**
   * Listed once connected (after the microphone permission: only then do devices have labels), a
   * microtask later: enumerateDevices() is a round trip to the browser's media process, kept off the connect path.
   */
  connected(): void {
    void Promise.resolve().then(() => this.start());
  }

  /** Lists the devices now and after every `devicechange` until close(). */
  start(): void {
    if (!this.source?.enumerateDevices || this.closed) return;
    this.source.removeEventListener('devicechange', this.onChange);
    this.source.addEventListener('devicechange', this.onChange);
    void this.refresh();
  }

  close(): void {
    this.closed = true;
    this.source?.removeEventListener('devicechange', this.onChange);
    this.asked++; // a pending enumeration no longer reports
  }

  /** Enumerates again; reports when the list differs from the last one. Never rejects. */
  async refresh(): Promise<void> {
    const ask = ++this.asked;
    let devices: MediaDeviceInfo[];
    try {
      devices = await this.source!.enumerateDevices();
    } catch {
      return; // the list stays as it was: nothing to report
    }
    if (ask !== this.asked) return;
    const next: DeviceList = Object.freeze({
      inputs: Object.freeze(devices.filter((d) => d.kind === 'audioinput').map(summary)),
      outputs: Object.freeze(devices.filter((d) => d.kind === 'audiooutput').map(summary)),
    });
    if (this.list && JSON.stringify(this.list) === JSON.stringify(next)) return;
    this.list = next;
    this.report(next);
  }
}
