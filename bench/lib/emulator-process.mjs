// Starts bench/lib/emulator-child.mjs: an emulator in a process of its own.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { benchDir, withTimeout } from './common.mjs';
import { procCpuSeconds } from './proc-cpu.mjs';

/**
 * Resolves `{ url, apiKey, fixtures, pid, cpuSeconds(), stop() }` once the child emulator accepts
 * requests. `cpuSeconds()` reads the child's user+system CPU time from /proc (null elsewhere).
 */
export async function startEmulatorProcess(options = {}) {
  // BENCH_EMULATOR_NODE_ARGS: node flags for the emulator's process only, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'
  // to profile it under a benchmark's load (NODE_OPTIONS refuses --cpu-prof, and would reach every process).
  const nodeArgs = (process.env.BENCH_EMULATOR_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(benchDir, 'lib', 'emulator-child.mjs'), JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: process.env,
  });
  let out = '';
  const announced = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.once('exit', (code) => reject(new Error(`emulator process exited (${code}) before it was ready`)));
  });
  const info = await withTimeout(announced, 30000, 'emulator process start');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    ...info,
    cpuSeconds: () => procCpuSeconds(child.pid),
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
