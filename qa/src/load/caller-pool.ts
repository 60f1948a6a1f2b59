import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CallTurn } from '../types.js';

/** Events the caller process sends about one call. */
export interface CallEvents {
  turn(turn: CallTurn, clientPerceivedMs: number | null): void;
  status(status: string): void;
}

/** A request the caller process failed: its code (a session's, or `caller_crashed`) and message. */
export class CallerError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { code: string | null; message: string } };
type Event =
  | { event: 'turn'; call: number; turn: CallTurn; perceived: number | null }
  | { event: 'status'; call: number; status: string }
  | { event: 'cpu'; micros: number };
type Ready = { ready: true };

/**
 * The caller process of this Artillery worker (caller-host.ts), forked on first use: requests by
 * id, call events to each call's listener, its CPU time kept for the generator's figures. The
 * process is unref'd while no call runs, so it never keeps a finished run alive; if it dies, every
 * pending request fails with `caller_crashed` and the next call forks a new one.
 */
class CallerProcess {
  #child: ChildProcess;
  #ready: Promise<void>;
  #nextId = 1;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #calls = new Map<number, CallEvents>();
  /** CPU time of this process and of the ones before it (crashed), in µs. */
  #cpuMicros = 0;
  #cpuBefore = 0;
  dead = false;

  constructor(cpuBefore: number) {
    this.#cpuBefore = cpuBefore;
    const entry = fileURLToPath(new URL(`./caller-host${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
    // From sources (this package's own tests): tsx runs the TypeScript entry.
    const execArgv = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    this.#child = fork(entry, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#ready = new Promise((resolve, reject) => {
      this.#child.once('error', reject);
      this.#child.on('message', (m: Reply | Event | Ready) => {
        if ('ready' in m) resolve();
        else this.#receive(m);
      });
      this.#child.once('exit', (code, signal) => {
        this.dead = true;
        const why = new CallerError('caller_crashed', `kb-voice-qa: the caller process exited (${signal ?? `code ${code}`})`);
        reject(why);
        for (const p of this.#pending.values()) p.reject(why);
        this.#pending.clear();
        for (const c of this.#calls.values()) c.status('failed');
      });
    });
    this.#ready.catch(() => undefined);
    this.#idle();
  }

  get cpuMicros(): number {
    return this.#cpuBefore + this.#cpuMicros;
  }

  listen(call: number, events: CallEvents): void {
    this.#calls.set(call, events);
    this.#child.ref();
    (this.#child.channel as { ref?: () => void } | undefined)?.ref?.();
  }

  forget(call: number): void {
    this.#calls.delete(call);
    if (this.#calls.size === 0) this.#idle();
  }

  async request(message: Record<string, unknown>): Promise<unknown> {
    await this.#ready;
    if (this.dead) throw new CallerError('caller_crashed', 'kb-voice-qa: the caller process is gone');
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.send({ ...message, id });
    });
  }

  #idle(): void {
    this.#child.unref();
    (this.#child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  #receive(m: Reply | Event): void {
    if ('id' in m) {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (!p) return;
      if (m.ok) p.resolve(m.value);
      else p.reject(new CallerError(m.error.code ?? 'caller_error', m.error.message));
      return;
    }
    if (m.event === 'cpu') this.#cpuMicros = m.micros;
    else if (m.event === 'turn') this.#calls.get(m.call)?.turn(m.turn, m.perceived);
    else if (m.event === 'status') this.#calls.get(m.call)?.status(m.status);
  }
}

let current: CallerProcess | undefined;
let nextCall = 1;

/** This worker's caller process (a new one after a crash). */
export function callerProcess(): CallerProcess {
  if (!current || current.dead) current = new CallerProcess(current?.cpuMicros ?? 0);
  return current;
}

/** A new call number, unique in this worker. */
export const newCallNumber = (): number => nextCall++;

/** CPU time of this worker's caller processes so far (µs), for the generator's figures. */
export const callerCpuMicros = (): number => current?.cpuMicros ?? 0;

export type { CallerProcess };
