import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

// What a Firefox that stopped answering WebDriver BiDi was doing (docs/contributing.md, "How long npm
// test takes": a page script timed out after 120 s in a voice call, under load, and the retry passed).
// Read from /proc when a wait fails: each process of the browser's tree with its state and the CPU it
// used over a short interval, and its busiest threads by name, so the next occurrence says whether a
// process was spinning (R, CPU growing: which thread) or blocked (S/D, no CPU, and in which kernel wait
// its main thread sleeps: a lock or its event loop). Threads, their states
// and names are what this needs; kb-voice-qa's CPU reader (proc-cpu.ts) sums whole process trees.

interface Sample {
  state: string;
  ppid: number;
  ticks: number;
  name: string;
}

/** `/proc/<path>/stat` as { name, state, ppid, utime + stime (ticks) }, or null once gone. */
function readStat(path: string): Sample | null {
  try {
    const text = readFileSync(`/proc/${path}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const f = text.slice(close + 2).split(' ');
    return { name: text.slice(text.indexOf('(') + 1, close), state: f[0]!, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

const list = (dir: string) => {
  try {
    return readdirSync(dir).filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
};

/** `root` and every process under it. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of list('/proc')) {
    const s = readStat(pid);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(pid)]);
  }
  const out: number[] = [];
  for (const stack = [root]; stack.length; ) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function threads(pid: number): Map<string, Sample> {
  const out = new Map<string, Sample>();
  for (const tid of list(`/proc/${pid}/task`)) {
    const s = readStat(`${pid}/task/${tid}`);
    if (s) out.set(tid, s);
  }
  return out;
}

/** The kernel function a process's main thread sleeps in (a lock: futex_wait…, an event loop: do_epoll_wait, poll_schedule…), '-' when running or unreadable. */
function waitChannel(pid: number): string {
  try {
    const wchan = readFileSync(`/proc/${pid}/wchan`, 'utf8').trim();
    return wchan && wchan !== '0' ? wchan : '-';
  } catch {
    return '-';
  }
}

/**
 * The native stack of a blocked main thread (gdb attached for a moment, 10 s at most), the question left
 * by a wedged Firefox whose main thread used no CPU: a lock, IPC or audio (libpulse) wait shows by its
 * frames' library names even without debug symbols. '' without gdb or when it cannot attach.
 */
function nativeStack(pid: number): string {
  if (!existsSync('/usr/bin/gdb')) return '';
  try {
    const out = execFileSync('/usr/bin/gdb', ['-batch', '-nx', '-p', String(pid), '-ex', 'thread 1', '-ex', 'bt 30'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out
      .split('\n')
      .filter((line, i, all) => /^#\d+/.test(line) && line !== all[i - 1]) // 'thread 1' prints frame #0 too
      .map((line) => `    ${line.replace(/\s+/g, ' ').slice(0, 200)}`)
      .join('\n');
  } catch {
    return '';
  }
}

/**
 * One line per process of `root`'s tree: name, pid, state, CPU ms over `intervalMs`, and its three
 * busiest threads then (name, state, ms). '' where there is no /proc.
 */
export async function hangReport(root: number, intervalMs = 1000): Promise<string> {
  const pids = tree(root);
  const before = new Map(pids.map((pid) => [pid, threads(pid)]));
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
  const ms = (ticks: number) => ticks * 10; // USER_HZ 100
  const lines: string[] = [];
  for (const pid of pids) {
    const proc = readStat(String(pid));
    if (!proc) continue;
    const was = before.get(pid) ?? new Map<string, Sample>();
    const now = threads(pid);
    const busy = [...now].map(([tid, s]) => ({ name: s.name, state: s.state, ms: ms(s.ticks - (was.get(tid)?.ticks ?? s.ticks)) }));
    const used = busy.reduce((sum, t) => sum + t.ms, 0);
    const top = busy.sort((a, b) => b.ms - a.ms).slice(0, 3).map((t) => `${t.name} ${t.state} ${t.ms} ms`).join(', ');
    lines.push(`${proc.name} ${pid} ${proc.state} ${used} ms in ${intervalMs} ms, main thread waiting in ${waitChannel(pid)} (${now.size} threads; busiest: ${top})`);
    // Only the browser's processes, asleep: the node worker is the one asking.
    const stack = pid !== root && proc.state === 'S' && used === 0 ? nativeStack(pid) : '';
    if (stack) lines.push(stack);
  }
  return lines.join('\n');
}
