import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** A child process whose output is kept, and which a test can await the output or the end of. */
export interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /**
   * The exit code (null when killed by a signal), on 'close', not 'exit': the exit can come before the
   * last of stderr has been read (a loaded CI run saw exit code 1 with an empty stderr); 'close' comes
   * once the process ended and its pipes are drained.
   */
  exit: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout, as soon as it is written; rejects, with its output, if the process ends first. */
  printed: (pattern: RegExp) => Promise<string>;
}

/** Spawns `command` with piped output (stdin ignored). */
export function spawned(command: string, args: string[], options: Omit<SpawnOptions, 'stdio'> = {}): Spawned {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const printed = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = out.match(pattern);
        if (!found) return;
        child.stdout!.off('data', look);
        resolve(found[0]);
      };
      child.stdout!.on('data', look);
      look();
      void exit.then((code) => reject(new Error(`exited (${code}) before printing ${pattern}; stdout: ${out}; stderr: ${err}`)));
    });
  return { child, stdout: () => out, stderr: () => err, exit, printed };
}
