/**
 * The one reader of CPU time for kb-voice-qa's load figures and the repository's benchmarks
 * (bench/ imports it through `kb-voice-qa/load`): a process's own time and its tree's from /proc,
 * the machine's busy time from `os.cpus()`. Every figure is in µs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = 100;
const ticksToMicros = (ticks: number) => (ticks / TICKS_PER_SECOND) * 1_000_000;

/** `[ppid, utime + stime, cutime + cstime]` of a process from /proc (ticks), or null once it is gone. */
function stat(pid: number | string): [number, number, number] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid ... utime(14) stime(15) cutime(16) cstime(17), 1-based over the whole line.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
  } catch {
    return null;
  }
}

/** User + system CPU time (µs) of process `pid` so far; null where there is no /proc or once it exited. */
export function processCpuMicros(pid: number): number | null {
  const s = stat(pid);
  return s ? ticksToMicros(s[1]) : null;
}

/**
 * CPU time (µs) of this process and every process under it — the caller processes, the Chromium
 * pages of Artillery's Playwright engine — plus the children it already waited for, from /proc;
 * null where there is no /proc (not Linux). What the load generator as a whole used so far.
 */
export function processTreeCpuMicros(root = process.pid): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  const times = new Map<number, number>();
  let rootWaited = 0;
  for (const pid of pids) {
    const s = stat(pid);
    if (!s) continue;
    const n = Number(pid);
    times.set(n, s[1]);
    if (n === root) rootWaited = s[2];
    const list = children.get(s[0]);
    if (list) list.push(n);
    else children.set(s[0], [n]);
  }
  if (!times.has(root)) return null;
  let ticks = rootWaited;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    ticks += times.get(pid) ?? 0;
    for (const child of children.get(pid) ?? []) stack.push(child);
  }
  return ticksToMicros(ticks);
}

/** CPU time (µs, all cores summed) the machine has spent so far: `busy` and `total` (busy + idle). */
export function machineCpuMicros(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  // os.cpus() counts in ms.
  return { busy: busy * 1000, total: total * 1000 };
}
