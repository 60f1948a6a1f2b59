import type { SessionEffect } from './effects.js';
/** What {@link NetworkWatch} reports. */
export interface NetworkReport {
  /** The browser says it has no network (`offline`). */
  offline(): void;
  /** The network is back (`online`), or it changed (`navigator.connection` `change`: Wi-Fi to cellular…). */
  changed(cause: 'online' | 'network_change'): void;
}

/** Where the network events come from (`window` and `navigator.connection` by default). */
export interface NetworkSource {
  events: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> | undefined;
  connection: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> | undefined;
  /** `navigator.onLine`. */
  onLine(): boolean;
}

function browserNetwork(): NetworkSource {
  const nav = typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { connection?: EventTarget });
  return {
    events: typeof window === 'undefined' ? undefined : window,
    connection: nav?.connection,
    onLine: () => nav?.onLine !== false,
  };
}

/**
 * Tells the session at once when the device's network goes away, comes back or changes, instead
 * of letting it wait for missed heartbeats: the path the call used is likely gone, so the session
 * restarts ICE right away. An effect: it reports, the session decides.
 */
export class NetworkWatch implements SessionEffect {
  private readonly onOffline = () => this.report.offline();
  private readonly onOnline = () => this.report.changed('online');
  private readonly onChange = () => {
    // A `change` while offline says nothing new: `online` will follow.
    if (this.source.onLine()) this.report.changed('network_change');
  };

  constructor(private readonly report: NetworkReport, private readonly source: NetworkSource = browserNetwork()) {}

  /** Whether the browser says it is offline now. */
  get offline(): boolean {
    return !this.source.onLine();
  }

  start(): void {
    this.close();
    this.source.events?.addEventListener('offline', this.onOffline);
    this.source.events?.addEventListener('online', this.onOnline);
    this.source.connection?.addEventListener('change', this.onChange);
  }

  close(): void {
    this.source.events?.removeEventListener('offline', this.onOffline);
    this.source.events?.removeEventListener('online', this.onOnline);
    this.source.connection?.removeEventListener('change', this.onChange);
  }
}
