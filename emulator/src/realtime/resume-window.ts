import type { SessionRecord } from '../store.js';
import { RealtimeOfferError } from './errors.js';

/** Default of `resumeWindowMs`: how long a dropped session can be continued by an offer naming it (2 minutes). */
export const DEFAULT_RESUME_WINDOW_MS = 120_000;

/** Sessions kept in memory with their drop time before the oldest are forgotten (they then fall back to the store's `ended_at`). */
const MAX_REMEMBERED = 10_000;

/**
 * Which sessions an offer may continue: a live one always, a dropped one until `windowMs` after its
 * last connection closed (a page reload, a network change), an unknown id always (it creates that
 * session, e.g. after an emulator restart lost it). A known session past its window is refused with
 * 409 (`session_conflict`): continuing it would append a new conversation to an old one.
 */
export class ResumeWindow {
  readonly #droppedAt = new Map<string, number>();

  constructor(
    readonly windowMs: number = DEFAULT_RESUME_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(windowMs) || windowMs < 0) throw new RangeError(`resumeWindowMs must be >= 0, got ${windowMs}`);
  }

  /** A connection of `sessionId` closed: its window starts now. */
  dropped(sessionId: string): void {
    this.#droppedAt.delete(sessionId);
    this.#droppedAt.set(sessionId, this.now());
    if (this.#droppedAt.size > MAX_REMEMBERED) this.#droppedAt.delete(this.#droppedAt.keys().next().value!);
  }

  /** Throws unless an offer naming `record` (the stored session, if any) may continue it. */
  check(sessionId: string, record: SessionRecord | undefined, live: boolean): void {
    if (live || !record) return;
    // After a restart the drop time is only in the store.
    const droppedAt = this.#droppedAt.get(sessionId) ?? Date.parse(record.ended_at ?? record.created_at);
    const age = this.now() - droppedAt;
    if (age > this.windowMs) {
      throw new RealtimeOfferError('session_conflict', 409, `The session ended ${Math.round(age / 1000)} s ago, longer than the emulator's resumeWindowMs (${this.windowMs} ms): it can no longer be continued; start a new session`);
    }
  }
}
