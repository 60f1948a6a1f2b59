// The capacity bench's callers, spread over processes of their own (bench/lib/caller-child.mjs):
// caller i of a round lives in process i % size, so no one event loop (or wrtc instance) carries
// them all, and a native crash in one process is seen here as that process's exit, reported as a
// crash (with its signal) rather than counted as slow or failed turns.
import { fork } from 'node:child_process';
import path from 'node:path';
import { benchDir, withTimeout } from './common.mjs';
import { procCpuSeconds } from './proc-cpu.mjs';

const CHILD = path.join(benchDir, 'lib', 'caller-child.mjs');

/** A caller process exited while it had callers (e.g. SIGSEGV in wrtc). */
export class CallerCrash extends Error {
  constructor(crash) {
    super(`caller process ${crash.pid} ${crash.signal ? `killed by ${crash.signal}` : `exited with code ${crash.code}`} during ${crash.during} (${crash.sessions} session(s) of its share)`);
    this.crash = crash;
  }
}

function spawnCaller() {
  const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: process.env });
  const slot = { child, pid: child.pid, pending: new Map(), nextId: 0, exited: false, stopping: false, sessions: 0, during: 'idle' };
  slot.ready = withTimeout(new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`caller process exited (${signal ?? code}) before it was ready`)));
    child.on('message', (msg) => (msg.ready ? resolve() : null));
  }), 30000, 'caller process start');
  slot.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.on('message', (msg) => {
    const p = slot.pending.get(msg.id);
    if (!p) return;
    slot.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(new Error(msg.error));
  });
  slot.exit.then(({ code, signal }) => {
    slot.exited = true;
    if (slot.stopping) return;
    slot.crash = { pid: slot.pid, code, signal, during: slot.during, sessions: slot.sessions };
    for (const p of slot.pending.values()) p.reject(new CallerCrash(slot.crash));
    slot.pending.clear();
  });
  return slot;
}

function request(slot, msg, ms) {
  if (slot.exited) return Promise.reject(new CallerCrash(slot.crash ?? { pid: slot.pid, code: null, signal: null, during: msg.type, sessions: slot.sessions }));
  const id = slot.nextId++;
  slot.during = msg.type;
  return withTimeout(new Promise((resolve, reject) => {
    slot.pending.set(id, { resolve, reject });
    slot.child.send({ ...msg, id });
  }), ms, `caller process ${slot.pid}: ${msg.type}`);
}

/**
 * `size` caller processes. Each round: `connect`, `speak`, `end`; `takeCrashes()` returns (and
 * forgets) the processes that died since the last call; a dead process is replaced at the next
 * `connect`. `cpu()` is a snapshot of every live process's CPU seconds, `cpuSince(snapshot)` the
 * CPU each spent since (a process that died meanwhile is missing from it).
 */
export async function startCallerPool(size) {
  let slots = Array.from({ length: size }, spawnCaller);
  await Promise.all(slots.map((s) => s.ready));
  const crashes = [];
  const collect = () => {
    for (const s of slots) if (s.crash && !s.reported) (s.reported = true), crashes.push(s.crash);
  };
  const perSlot = (items, toSlotIndex) => slots.map((_, k) => items.filter((it) => toSlotIndex(it) === k));

  return {
    size,
    /** Connects `n` callers to `target`, caller i in process i % size after `delayMs(i)`. */
    async connect(target, n, { delayMs, idleAudio, timeoutMs }) {
      collect();
      slots = await Promise.all(slots.map(async (s) => {
        if (!s.exited) return s;
        const fresh = spawnCaller();
        await fresh.ready;
        return fresh;
      }));
      const shares = perSlot(Array.from({ length: n }, (_, i) => ({ index: i, delayMs: delayMs(i) })), (it) => it.index % size);
      const replies = await Promise.allSettled(slots.map((s, k) => {
        s.sessions = shares[k].length;
        return shares[k].length ? request(s, { type: 'connect', target, sessions: shares[k], idleAudio }, timeoutMs) : { connected: [], failed: [] };
      }));
      return {
        connected: replies.flatMap((r) => (r.status === 'fulfilled' ? r.value.connected : [])),
        failed: replies.flatMap((r, k) => (r.status === 'fulfilled' ? r.value.failed : shares[k].map((it) => ({ index: it.index, error: String(r.reason?.message ?? r.reason) })))),
      };
    },
    /** Speakers `[{ index, delayMs, fixture }]` ask their questions; one result per speaker. */
    async speak(speakers, { answerPlayMs, turnTimeoutMs }) {
      const shares = perSlot(speakers, (it) => it.index % size);
      const replies = await Promise.allSettled(slots.map((s, k) => (shares[k].length
        ? request(s, { type: 'speak', speakers: shares[k], answerPlayMs, turnTimeoutMs }, turnTimeoutMs + 30000)
        : { results: [] })));
      return replies.flatMap((r, k) => (r.status === 'fulfilled' ? r.value.results : shares[k].map((it) => ({ index: it.index, error: String(r.reason?.message ?? r.reason) }))));
    },
    /** Ends the round's sessions in every live process. */
    async end() {
      await Promise.allSettled(slots.map((s) => (s.exited ? null : request(s, { type: 'end' }, 30000))));
      for (const s of slots) s.sessions = 0;
    },
    takeCrashes() {
      collect();
      return crashes.splice(0);
    },
    cpu: () => new Map(slots.map((s) => [s.pid, procCpuSeconds(s.pid)])),
    cpuSince(snapshot) {
      const now = this.cpu();
      return [...snapshot].flatMap(([pid, c0]) => (c0 !== null && now.get(pid) != null ? [now.get(pid) - c0] : []));
    },
    async close() {
      await Promise.all(slots.map(async (s) => {
        s.stopping = true;
        if (s.exited) return;
        s.child.disconnect();
        const timer = setTimeout(() => s.child.kill('SIGKILL'), 5000);
        await s.exit;
        clearTimeout(timer);
      }));
    },
  };
}
