import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { deadline, systemClock } from '../../../src/clock.js';
import { spawned } from '../../helpers/spawned.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** The `kb-voice-emulator` command of the workspace package, run from source (no build needed). */
const COMMAND = ['--import', 'tsx', 'emulator/src/bin.ts'];

/** An emulator running in its own process, which a test can kill like a crash would. */
export interface EmulatorProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal), once its output is read to the end. */
  exited: Promise<number | null>;
  /** Everything it printed so far. */
  output(): { out: string; err: string };
  /** SIGKILL: no cleanup runs, as in a crash or an OOM kill. Resolves once the process is gone. */
  crash(): Promise<void>;
  /** SIGTERM and wait for a clean exit (idempotent; a no-op once it exited). */
  stop(): Promise<void>;
}

/**
 * Starts `kb-voice-emulator` as a child process and resolves once it prints its URL. `port` 0 picks
 * a free one; pass the previous process's port to restart "the same" service. `env` is merged into
 * this process's environment (e.g. `TMPDIR`).
 */
export async function spawnEmulator(options: { port?: number; args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<EmulatorProcess> {
  const args = [...COMMAND, '--port', String(options.port ?? 0), '--host', '127.0.0.1', ...(options.args ?? [])];
  const p = spawned(process.execPath, args, { cwd: root, env: { ...process.env, ...options.env } });
  // A start that hangs fails the test with what it printed, well before the test's own limit.
  const late = deadline(systemClock, 20_000, () => new Error(`emulator did not start within 20 s: ${p.stdout()}${p.stderr()}`));
  const url = await Promise.race([p.printed(/http:\/\/127\.0\.0\.1:\d+/), late.promise]).finally(late.clear);
  const gone = async (signal: NodeJS.Signals) => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
    await p.exit;
  };
  return {
    url,
    port: Number(new URL(url).port),
    pid: p.child.pid!,
    child: p.child,
    exited: p.exit,
    output: () => ({ out: p.stdout(), err: p.stderr() }),
    crash: () => gone('SIGKILL'),
    stop: () => gone('SIGTERM'),
  };
}
