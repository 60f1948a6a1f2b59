import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** The `kb-voice-emulator` command of the workspace package, run from source (no build needed). */
const COMMAND = ['--import', 'tsx', 'emulator/src/bin.ts'];

/** An emulator running in its own process, which a test can kill like a crash would. */
export interface EmulatorProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
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
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exitCode = code))));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`emulator did not start within 20 s: ${out}${err}`)), 20_000);
    const check = () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve(m[1]!);
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited with ${code} before listening: ${err}`));
    });
  });
  const gone = async (signal: NodeJS.Signals) => {
    if (exitCode === undefined && child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    child,
    exited,
    output: () => ({ out, err }),
    crash: () => gone('SIGKILL'),
    stop: () => gone('SIGTERM'),
  };
}
