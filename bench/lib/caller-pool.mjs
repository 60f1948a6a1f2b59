// The capacity bench's callers, spread over processes of their own (bench/lib/caller-child.mjs):
// caller i of a round lives in process i % size, so no one event loop (or wrtc instance) carries
// them all, and a native crash in one process is seen here as that process's exit, reported as a
// crash (with its signal) rather than counted as slow or failed turns.
// The processes themselves (fork, ready, requests by id, exit) are kb-voice-qa's one forked-process
// layer (ForkedProcess, kb-voice-qa/load), which its Artillery caller process is built on too.
import path from 'node:path';
import { benchDir, ensureBuilt } from './common.mjs';
import { procCpuSeconds } from './proc-cpu.mjs';

ensureBuilt();
const { ForkedProcess } = await import('kb-voice-qa/load');

const CHILD = path.join(benchDir, 'lib', 'caller-child.mjs');

/** A caller process exited while it had callers (e.g. SIGSEGV in wrtc). */
export class CallerCrash extends Error {
  constructor(crash) {
    super(`caller process ${crash.pid} ${crash.signal ? `killed by ${crash.signal}` : `exited with code ${crash.code}`} during ${crash.during} (${crash.sessions} session(s) of its share)`);
    this.crash = crash;
  }
}

/** One caller process and what it was doing, for the crash report. */
function spawnCaller() {
  const slot = { sessions: 0, during: 'idle' };
  const crashOf = (exit) => ({ pid: exit.pid, code: exit.code, signal: exit.signal, during: slot.during, sessions: slot.sessions });
  slot.process = new ForkedProcess(CHILD, {
    readyTimeoutMs: 30000,
    exitError: (exit) => new CallerCrash(crashOf(exit)),
    onExit: (exit) => (slot.crash = crashOf(exit)),
  });
  return slot;
}

function request(slot, msg, ms) {
  slot.during = msg.op;
  return slot.process.request(msg, ms);
}

/**
 * `size` caller processes. Each round: `connect`, `speak`, `end`; `takeCrashes()` returns (and
 * forgets) the processes that died since the last call; a dead process is replaced at the next
 * `connect`. `cpu()` is a snapshot of every live process's CPU seconds, `cpuSince(snapshot)` the
 * CPU each spent since (a process that died meanwhile is missing from it).
 */
export async function startCallerPool(size) {
  let slots = Array.from({ length: size }, spawnCaller);
  await Promise.all(slots.map((s) => s.process.ready));
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
        if (!s.process.exit) return s;
        const fresh = spawnCaller();
        await fresh.process.ready;
        return fresh;
      }));
      const shares = perSlot(Array.from({ length: n }, (_, i) => ({ index: i, delayMs: delayMs(i) })), (it) => it.index % size);
      const replies = await Promise.allSettled(slots.map((s, k) => {
        s.sessions = shares[k].length;
        return shares[k].length ? request(s, { op: 'connect', target, sessions: shares[k], idleAudio }, timeoutMs) : { connected: [], failed: [] };
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
        ? request(s, { op: 'speak', speakers: shares[k], answerPlayMs, turnTimeoutMs }, turnTimeoutMs + 30000)
        : { results: [] })));
      return replies.flatMap((r, k) => (r.status === 'fulfilled' ? r.value.results : shares[k].map((it) => ({ index: it.index, error: String(r.reason?.message ?? r.reason) }))));
    },
    /** Ends the round's sessions in every live process. */
    async end() {
      await Promise.allSettled(slots.map((s) => (s.process.exit ? null : request(s, { op: 'end' }, 30000))));
      for (const s of slots) s.sessions = 0;
    },
    takeCrashes() {
      collect();
      return crashes.splice(0);
    },
    cpu: () => new Map(slots.map((s) => [s.process.pid, procCpuSeconds(s.process.pid)])),
    cpuSince(snapshot) {
      const now = this.cpu();
      return [...snapshot].flatMap(([pid, c0]) => (c0 !== null && now.get(pid) != null ? [now.get(pid) - c0] : []));
    },
    async close() {
      await Promise.all(slots.map((s) => s.process.close()));
    },
  };
}
