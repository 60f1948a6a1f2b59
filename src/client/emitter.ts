/** A listener of any event. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;
type Args<E, K extends keyof E> = E[K] extends (...args: infer A) => unknown ? A : never;

/**
 * The session's typed event emitter: the part of eventemitter3's API apps call (`on`/`addListener`,
 * `once`, `off`/`removeListener`, `removeAllListeners`, `emit`, `listeners`, `listenerCount`,
 * `eventNames`) with its behaviour (listeners run in the order added, over the list as it was when
 * the event began; `once` ones removed before they run; no special `error` event), in a fraction of
 * its size: every browser bundle carries it.
 */
export class EventEmitter<E extends { [K in keyof E]: Listener }> {
  #events = new Map<keyof E, { fn: Listener; context: unknown; once: boolean }[]>();

  on<K extends keyof E>(event: K, fn: E[K], context?: unknown): this {
    return this.#add(event, fn, context, false);
  }

  addListener<K extends keyof E>(event: K, fn: E[K], context?: unknown): this {
    return this.#add(event, fn, context, false);
  }

  once<K extends keyof E>(event: K, fn: E[K], context?: unknown): this {
    return this.#add(event, fn, context, true);
  }

  /** Removes `fn` (with that `context`, and only `once` ones when `once`) or, without `fn`, every listener of `event`. */
  off<K extends keyof E>(event: K, fn?: E[K], context?: unknown, once?: boolean): this {
    const kept = (this.#events.get(event) ?? []).filter((l) => fn && (l.fn !== fn || (once && !l.once) || (context !== undefined && l.context !== context)));
    if (kept.length) this.#events.set(event, kept);
    else this.#events.delete(event);
    return this;
  }

  removeListener<K extends keyof E>(event: K, fn?: E[K], context?: unknown, once?: boolean): this {
    return this.off(event, fn, context, once);
  }

  removeAllListeners(event?: keyof E): this {
    if (event === undefined) this.#events.clear();
    else this.#events.delete(event);
    return this;
  }

  /** Calls the listeners of `event` with `args`; whether it had any. */
  emit<K extends keyof E>(event: K, ...args: Args<E, K>): boolean {
    const listeners = this.#events.get(event);
    if (!listeners) return false;
    for (const l of [...listeners]) {
      if (l.once) this.off(event, l.fn as E[K], l.context, true);
      l.fn.apply(l.context, args);
    }
    return true;
  }

  listeners<K extends keyof E>(event: K): E[K][] {
    return (this.#events.get(event) ?? []).map((l) => l.fn as E[K]);
  }

  listenerCount(event: keyof E): number {
    return this.#events.get(event)?.length ?? 0;
  }

  eventNames(): (keyof E)[] {
    return [...this.#events.keys()];
  }

  #add(event: keyof E, fn: Listener, context: unknown, once: boolean): this {
    this.#events.set(event, [...(this.#events.get(event) ?? []), { fn, context: context ?? this, once }]);
    return this;
  }
}
