import { rm } from 'node:fs/promises';
import type { Collection, Store } from './store.js';
import { sleep } from './time.js';

/**
 * E15's background hard delete. Accepting a deletion marks the session `deleting` (every read then
 * ignores it) and queues it; a single worker removes its messages, usage records and audio
 * (records and WAV files) in batches of `batchSize`, yielding between batches so the server stays
 * responsive, and removes the session record last.
 */
export class DeletionQueue {
  readonly #queue: string[] = [];
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly store: Store,
    private readonly opts: { batchSize?: number; pauseMs?: number } = {},
  ) {}

  /** Marks the session as deleting and schedules its removal; returns at once. */
  schedule(sessionId: string): void {
    if (this.#closed) return;
    this.store.sessions.patch(sessionId, { deleting: true });
    if (!this.#queue.includes(sessionId)) this.#queue.push(sessionId);
    this.#running ??= this.#work().finally(() => {
      this.#running = null;
    });
  }

  /** Whether a session is queued or being deleted. */
  pending(sessionId: string): boolean {
    return this.#queue.includes(sessionId);
  }

  /** Resolves when every queued deletion has finished. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Finishes the current work and accepts no more. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
  }

  async #work(): Promise<void> {
    const size = this.opts.batchSize ?? 50;
    const pause = () => sleep(this.opts.pauseMs ?? 1);
    while (this.#queue.length > 0) {
      const sessionId = this.#queue[0]!;
      const { messages, usage, audio, sessions } = this.store;
      for (const collection of [messages, usage] as Collection<{ id: string; session_id: string }>[]) {
        for (;;) {
          const batch = collection.where('session_id', sessionId).slice(0, size);
          if (batch.length === 0) break;
          for (const r of batch) collection.delete(r.id);
          await pause();
        }
      }
      for (;;) {
        const batch = audio.where('session_id', sessionId).slice(0, size);
        if (batch.length === 0) break;
        await Promise.all(batch.map((r) => rm(r.file, { force: true })));
        for (const r of batch) audio.delete(r.id);
        await pause();
      }
      sessions.delete(sessionId);
      this.#queue.shift();
    }
  }
}
