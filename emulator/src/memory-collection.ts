import type { Collection, SessionCollection, SessionRecord, Store } from './store.js';
import { parseTime } from './time.js';

/**
 * A collection kept in a Map, insertion-ordered, with an equality index (value → ids) for each
 * field named at construction, kept up to date by every write.
 */
export class MemoryCollection<T extends { id: string }> implements Collection<T> {
  readonly #items = new Map<string, T>();
  readonly #indexes = new Map<keyof T, Map<unknown, Set<string>>>();

  constructor(indexed: readonly (keyof T & string)[] = []) {
    for (const field of indexed) this.#indexes.set(field, new Map());
  }

  get(id: string) { return this.#items.get(id); }

  put(item: T) {
    const before = this.#items.get(item.id);
    this.#items.set(item.id, item);
    this.reindex(before, item);
    return item;
  }

  patch(id: string, patch: Partial<T>) {
    const cur = this.#items.get(id);
    if (!cur) return undefined;
    const next = { ...cur, ...patch };
    this.#items.set(id, next);
    this.reindex(cur, next);
    return next;
  }

  delete(id: string) {
    const cur = this.#items.get(id);
    if (!cur) return false;
    this.#items.delete(id);
    this.reindex(cur, undefined);
    return true;
  }

  find(predicate: (item: T) => boolean) { return [...this.#items.values()].filter(predicate); }

  where<K extends keyof T & string>(field: K, value: T[K]): T[] {
    const index = this.#indexes.get(field);
    if (!index) return this.find((item) => item[field] === value);
    const out: T[] = [];
    for (const id of index.get(value) ?? []) out.push(this.#items.get(id)!);
    return out;
  }

  all() { return [...this.#items.values()]; }
  size() { return this.#items.size; }

  clear() {
    this.#items.clear();
    for (const index of this.#indexes.values()) index.clear();
  }

  /** Moves `before`'s index entries to `after`'s (either may be absent: insert, delete). */
  protected reindex(before: T | undefined, after: T | undefined): void {
    for (const [field, index] of this.#indexes) {
      const was = before?.[field];
      const now = after?.[field];
      if (before && after && was === now) continue;
      if (before) {
        const ids = index.get(was);
        ids?.delete(before.id);
        if (ids?.size === 0) index.delete(was);
      }
      if (after) {
        let ids = index.get(now);
        if (!ids) index.set(now, (ids = new Set()));
        ids.add(after.id);
      }
    }
  }
}

/** One robot's sessions ordered by creation time (ascending; ties by id, descending). */
interface Timeline {
  entries: { t: number; id: string }[];
  sorted: boolean;
}

const byTime = (a: { t: number; id: string }, b: { t: number; id: string }) => a.t - b.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Sessions indexed by robot, with a per-robot timeline for windowed reads. Sessions usually arrive
 * in time order (live calls), which appends; anything else (history seeding, deletion, a changed
 * `created_at`) marks the robot's timeline for one re-sort on its next read.
 */
export class MemorySessions extends MemoryCollection<SessionRecord> implements SessionCollection {
  readonly #timelines = new Map<string, Timeline>();

  constructor() {
    super(['robot_id']);
  }

  between(robotId: string, from: number, to: number): SessionRecord[] {
    const timeline = this.#timeline(robotId);
    if (!timeline) return [];
    const { entries } = timeline;
    const lo = lowerBound(entries, from);
    const out: SessionRecord[] = [];
    for (let i = lowerBound(entries, to + 1) - 1; i >= lo; i--) out.push(this.get(entries[i]!.id)!);
    return out;
  }

  override clear() {
    super.clear();
    this.#timelines.clear();
  }

  protected override reindex(before: SessionRecord | undefined, after: SessionRecord | undefined): void {
    super.reindex(before, after);
    if (before && after && before.robot_id === after.robot_id && before.created_at === after.created_at) return;
    if (before) this.#dirty(before.robot_id);
    if (!after) return;
    const timeline = this.#timelines.get(after.robot_id);
    if (!timeline || !timeline.sorted) return this.#dirty(after.robot_id);
    const entry = { t: parseTime(after.created_at), id: after.id };
    const last = timeline.entries[timeline.entries.length - 1];
    if (before?.robot_id !== after.robot_id && (!last || byTime(last, entry) < 0)) timeline.entries.push(entry);
    else timeline.sorted = false;
  }

  #dirty(robotId: string): void {
    const timeline = this.#timelines.get(robotId);
    if (timeline) timeline.sorted = false;
  }

  #timeline(robotId: string): Timeline | undefined {
    let timeline = this.#timelines.get(robotId);
    if (timeline?.sorted) return timeline;
    const sessions = this.where('robot_id', robotId);
    if (sessions.length === 0) {
      this.#timelines.delete(robotId);
      return undefined;
    }
    timeline = { entries: sessions.map((s) => ({ t: parseTime(s.created_at), id: s.id })).sort(byTime), sorted: true };
    this.#timelines.set(robotId, timeline);
    return timeline;
  }
}

/** First index whose time is >= `t`. */
function lowerBound(entries: readonly { t: number }[], t: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The in-memory store, with the indexes E11–E19, deletion and the recorder look records up by. */
export function createMemoryStore(): Store {
  return {
    robots: new MemoryCollection(),
    datasets: new MemoryCollection(),
    files: new MemoryCollection(),
    links: new MemoryCollection(),
    integrations: new MemoryCollection(),
    sessions: new MemorySessions(),
    messages: new MemoryCollection(['session_id']),
    usage: new MemoryCollection(['session_id', 'message_id']),
    audio: new MemoryCollection(['session_id']),
  };
}
