import { fileURLToPath } from 'node:url';
import type { CallTurn } from '../types.js';
import { ForkedProcess } from './forked.js';

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

type Event =
  | { event: 'turn'; call: number; turn: CallTurn; perceived: number | null }
  | { event: 'status'; call: number; status: string }
  | { event: 'cpu'; micros: number };

/**
 * The caller process of this Artillery worker (caller-host.ts), forked on first use (forked.ts):
 * requests by id, call events to each call's listener, its CPU time kept for the generator's
 * figures. The process is unref'd while no call runs, so it never keeps a finished run alive; if it
 * dies, every pending request fails with `caller_crashed`, every call's status becomes `failed`, and
 * the next call forks a new one.
 */
class CallerProcess {
  #process: ForkedProcess;
  #calls = new Map<number, CallEvents>();
  /** CPU time of this process and of the ones before it (crashed), in µs. */
  #cpuMicros = 0;
  #cpuBefore = 0;
  dead = false;

  constructor(cpuBefore: number) {
    this.#cpuBefore = cpuBefore;
    const entry = fileURLToPath(new URL(`./caller-host${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
    this.#process = new ForkedProcess(entry, {
      exitError: ({ code, signal }) => new CallerError('caller_crashed', `kb-voice-qa: the caller process exited (${signal ?? `code ${code}`})`),
      replyError: ({ code, message }) => new CallerError(code ?? 'caller_error', message),
      onEvent: (m) => this.#receive(m as Event),
      onExit: () => {
        for (const c of this.#calls.values()) c.status('failed');
      },
    });
    void this.#process.exited.then(() => (this.dead = true));
    this.#process.hold(false);
  }

  get cpuMicros(): number {
    return this.#cpuBefore + this.#cpuMicros;
  }

  listen(call: number, events: CallEvents): void {
    this.#calls.set(call, events);
    this.#process.hold(true);
  }

  forget(call: number): void {
    this.#calls.delete(call);
    if (this.#calls.size === 0) this.#process.hold(false);
  }

  request(message: Record<string, unknown>): Promise<unknown> {
    return this.#process.request(message);
  }

  #receive(m: Event): void {
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
