import { fork, type ChildProcess } from 'node:child_process';

/** How a forked process ended. */
export interface ForkedExit {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A request the child answered with an error: its `code` (null where it had none) and message. */
export interface ForkedFailure {
  code: string | null;
  message: string;
}

export interface ForkedOptions {
  /** The error every pending (and every later) request fails with once the process has exited. */
  exitError(exit: ForkedExit): Error;
  /** The error a failed reply becomes (default: an Error with the child's message). */
  replyError?(failure: ForkedFailure): Error;
  /** Messages the child sends that are neither a reply nor `ready` (e.g. a call's events). */
  onEvent?(event: Record<string, unknown>): void;
  /** Called once when the process exits, after the pending requests were failed; not after `close()`. */
  onExit?(exit: ForkedExit): void;
  /** How long the child may take to say `ready` (ms; default: no limit). */
  readyTimeoutMs?: number;
}

/** How long `close()` waits for the child to leave on its own before SIGKILL (ms). */
export const FORKED_KILL_AFTER_MS = 5000;

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ForkedFailure };

/**
 * The one forked-process layer of the load tools (kb-voice-qa's caller process and the capacity
 * bench's caller processes): forks a module (a `.ts` one through tsx), waits for its `{ ready: true }`,
 * sends requests with an `id` and settles each on the child's reply (`{ id, ok, value }` or
 * `{ id, ok: false, error: { code, message } }`, as `serveParent` sends them). When the process exits
 * (a native crash in wrtc, say) every pending request fails with `exitError`, and so does every
 * later one. The child side is forked-child.ts.
 */
export class ForkedProcess {
  readonly pid: number;
  /** Settles once the child said `ready`; rejects if it exited (or timed out) first. */
  readonly ready: Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<ForkedExit>;
  /** How the process ended, once it has. */
  exit: ForkedExit | null = null;
  #child: ChildProcess;
  #options: ForkedOptions;
  #nextId = 1;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #closing = false;

  constructor(entry: string, options: ForkedOptions) {
    this.#options = options;
    // From sources (this package's own tests): tsx runs the TypeScript entry.
    const execArgv = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    this.#child = fork(entry, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.pid = this.#child.pid ?? -1;
    this.exited = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve({ pid: this.pid, code, signal })));
    let timer: ReturnType<typeof setTimeout> | undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      this.#child.once('error', reject);
      this.#child.on('message', (m: Reply | { ready: true } | Record<string, unknown>) => {
        if ('ready' in m && m.ready === true) resolve();
        else if ('id' in m && typeof m.id === 'number' && 'ok' in m) this.#settle(m as Reply);
        else options.onEvent?.(m as Record<string, unknown>);
      });
      if (options.readyTimeoutMs !== undefined) {
        const ms = options.readyTimeoutMs;
        timer = setTimeout(() => reject(new Error(`forked process ${this.pid}: not ready after ${ms} ms`)), ms);
      }
      void this.exited.then((exit) => {
        this.exit = exit;
        reject(options.exitError(exit));
        if (this.#closing) return;
        for (const p of this.#pending.values()) p.reject(options.exitError(exit));
        this.#pending.clear();
        options.onExit?.(exit);
      });
    }).finally(() => clearTimeout(timer));
    this.ready.catch(() => undefined);
  }

  /**
   * Sends `message` with a fresh `id` once the child is ready; settles on its reply. `timeoutMs`
   * bounds the wait for the reply (the request is then forgotten: a late reply is dropped).
   */
  async request(message: Record<string, unknown>, timeoutMs?: number): Promise<unknown> {
    await this.ready;
    if (this.exit) throw this.#options.exitError(this.exit);
    const id = this.#nextId++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.send({ ...message, id });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new Error(`forked process ${this.pid}: ${String(message.op ?? 'request')} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      }
    }).finally(() => clearTimeout(timer));
  }

  /** Whether the process (and its channel) keeps this one's event loop alive. */
  hold(held: boolean): void {
    const channel = this.#child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (held) this.#child.ref(), channel?.ref?.();
    else this.#child.unref(), channel?.unref?.();
  }

  /** Disconnects (the child's cue to leave), SIGKILL after `killAfterMs`; idempotent. */
  async close(killAfterMs = FORKED_KILL_AFTER_MS): Promise<void> {
    this.#closing = true;
    if (!this.exit && this.#child.connected) this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), killAfterMs);
    await this.exited;
    clearTimeout(timer);
  }

  #settle(m: Reply): void {
    const p = this.#pending.get(m.id);
    this.#pending.delete(m.id);
    if (!p) return;
    if (m.ok) p.resolve(m.value);
    else p.reject(this.#options.replyError?.(m.error) ?? new Error(m.error.message));
  }
}
