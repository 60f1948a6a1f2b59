import { readdirSync, readFileSync } from 'node:fs';

/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = 100;

/** `[ppid, utime + stime, cutime + cstime]` of a process from /proc (ticks), or null once it is gone. */
function stat(pid: string): [number, number, number] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid ... utime(14) stime(15) cutime(16) cstime(17), 1-based over the whole line.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
  } catch {
    return null;
  }
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
  return (ticks / TICKS_PER_SECOND) * 1_000_000;
}
