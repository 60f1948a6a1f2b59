import type { SessionSnapshot, Turn } from './events.js';

export type { SessionSnapshot } from './events.js';

/** Builds frozen snapshots, sharing the turns array between snapshots until a turn is added or replaced (its sources read). */
export class SnapshotCache {
  private current: SessionSnapshot | undefined;
  private turns: readonly Turn[] = Object.freeze([]);

  constructor(private readonly read: () => Omit<SessionSnapshot, 'turns'> & { turnsSource: readonly Turn[] }) {}

  get(): SessionSnapshot {
    if (this.current) return this.current;
    const { turnsSource, ...rest } = this.read();
    // Turn objects are frozen when created; the array is copied only when one was added or replaced (turns are never removed).
    if (turnsSource.some((t, i) => t !== this.turns[i])) this.turns = Object.freeze([...turnsSource]);
    this.current = Object.freeze({ ...rest, turns: this.turns });
    return this.current;
  }

  /** Something observable changed: the next get() builds a new snapshot. */
  invalidate(): void {
    this.current = undefined;
  }
}
