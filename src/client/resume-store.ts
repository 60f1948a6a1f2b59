import type { SessionEffect } from './effects.js';
/** Default of `resumeWindowMs`: how long after a page left a call a reloaded page may continue it. */
export const DEFAULT_RESUME_WINDOW_MS = 120_000;

/** The storage the id is kept in (`sessionStorage`: per tab, survives a reload, not a new tab). */
export type ResumeStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Where page-lifecycle events come from (refreshing the stored time when the page goes away). */
export type PageEvents = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;

interface Stored {
  sessionId: string;
  /** When the page last had the call (ms since the epoch). */
  at: number;
}

function defaultStorage(): ResumeStorage | undefined {
  try {
    return globalThis.sessionStorage; // throws where storage is blocked (sandboxed frames, some privacy modes)
  } catch {
    return undefined;
  }
}

/**
 * The id of a live call kept in `sessionStorage` under `kb-voice:<aiId>` (option `resume: true`),
 * so the same tab can continue the call after a reload within `windowMs`. The time is refreshed
 * when the page goes away (`pagehide`), so the window counts from when the page left the call.
 * Storage that is missing or refuses writes only disables resuming; it never fails a call.
 */
export class ResumeStore implements SessionEffect {
  readonly key: string;
  private readonly onPageHide = () => this.touch();
  private kept: string | undefined;

  constructor(
    aiId: string,
    private readonly now: () => number,
    private readonly windowMs: number = DEFAULT_RESUME_WINDOW_MS,
    private readonly storage: ResumeStorage | undefined = defaultStorage(),
    private readonly page: PageEvents | undefined = typeof window === 'undefined' ? undefined : window,
  ) {
    if (!Number.isFinite(windowMs) || windowMs < 0) throw new RangeError(`resumeWindowMs must be >= 0, got ${windowMs}`);
    this.key = `kb-voice:${aiId}`;
  }

  /** The stored session id when it is recent enough to continue; an older or unreadable entry is removed. */
  take(): string | undefined {
    const stored = this.read();
    if (!stored) return undefined;
    if (this.now() - stored.at <= this.windowMs) return stored.sessionId;
    this.remove();
    return undefined;
  }

  /** The call `sessionId` is live: keep its id (and refresh its time when the page goes away). */
  keep(sessionId: string): void {
    this.kept = sessionId;
    this.write({ sessionId, at: this.now() });
    this.page?.removeEventListener('pagehide', this.onPageHide);
    this.page?.addEventListener('pagehide', this.onPageHide);
  }

  /** A live call's id is kept for a reload. */
  connected(attempt: { sessionId: string | undefined }): void {
    if (attempt.sessionId) this.keep(attempt.sessionId);
  }

  /** Once the call is over there is nothing to continue. */
  close(): void {
    this.clear();
  }

  /** The call is over (end()): nothing to continue. */
  clear(): void {
    this.kept = undefined;
    this.page?.removeEventListener('pagehide', this.onPageHide);
    this.remove();
  }

  /** Stops refreshing without removing the id (the page is going away, the call may be continued). */
  release(): void {
    this.page?.removeEventListener('pagehide', this.onPageHide);
  }

  private touch(): void {
    if (this.kept) this.write({ sessionId: this.kept, at: this.now() });
  }

  private read(): Stored | undefined {
    try {
      const value: unknown = JSON.parse(this.storage?.getItem(this.key) ?? 'null');
      const { sessionId, at } = (value ?? {}) as Partial<Stored>;
      if (typeof sessionId === 'string' && sessionId && typeof at === 'number' && Number.isFinite(at)) return { sessionId, at };
      if (value !== null) this.remove();
    } catch {
      this.remove();
    }
    return undefined;
  }

  private write(stored: Stored): void {
    try {
      this.storage?.setItem(this.key, JSON.stringify(stored));
    } catch {
      // Quota or a blocked storage: this call cannot be resumed after a reload, nothing else changes.
    }
  }

  private remove(): void {
    try {
      this.storage?.removeItem(this.key);
    } catch {
      // as in write()
    }
  }
}
