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

/** CPU seconds the whole machine has been busy so far (all cores, from /proc/stat; null where there is none). */
export function machineBusySeconds() {
  try {
    // First line: cpu user nice system idle iowait irq softirq steal …, in clock ticks (100 per second).
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const idle = ticks[3] + ticks[4];
    return (ticks.reduce((a, x) => a + x, 0) - idle) / 100;
  } catch {
    return null;
  }
}
