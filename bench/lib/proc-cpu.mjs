// CPU time of another process, for benchmarks that measure a child's share of the machine.
import { readFileSync } from 'node:fs';

/** User+system CPU seconds of process `pid` so far, from /proc (null where there is none, or once it exited). */
export function procCpuSeconds(pid) {
  try {
    // /proc/PID/stat fields 14 and 15: utime and stime in clock ticks (100 per second on Linux).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
