/**
 * The caller process (forked by caller-pool.ts): hosts the Node calls' media (VoiceSession over
 * @roamhq/wrtc, FakeMicrophone, Flite) for the Artillery worker that forked it, so that wrtc never
 * lives in a worker thread (Artillery ends those with process.exit(), and wrtc objects finalized in
 * that teardown crash the process: node-webrtc#636), and a native crash ends this process only.
 * Protocol: see caller-pool.ts (requests and replies: forked.ts). When the parent goes away every call
 * ends and the process exits.
 */
import type { CallTurn, Utterance } from '../types.js';
import { serveParent, toParent as send } from './forked-child.js';
import { LineError, NodeLine, type NodeCallTarget } from './node-line.js';

type Request =
  | { id: number; op: 'open'; call: number; target: NodeCallTarget }
  | { id: number; op: 'say'; call: number; utterance: Utterance }
  | { id: number; op: 'type'; call: number; text: string }
  | { id: number; op: 'end'; call: number; mode: 'graceful' | 'immediate' };

/** How often this process tells its CPU time (ms). */
const CPU_REPORT_MS = 1000;

const lines = new Map<number, NodeLine>();

function line(call: number): NodeLine {
  const found = lines.get(call);
  if (!found) throw new LineError('call_ended', `call ${call} is not open`);
  return found;
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'open': {
      const opened = await NodeLine.open(request.target, {
        turn: (turn: CallTurn, perceived) => send({ event: 'turn', call: request.call, turn, perceived }),
        status: (status) => send({ event: 'status', call: request.call, status }),
      });
      lines.set(request.call, opened);
      return { connectMs: opened.connectMs, sessionId: opened.session.sessionId ?? null, status: opened.status };
    }
    case 'say':
      return line(request.call).say(request.utterance);
    case 'type':
      return line(request.call).type(request.text);
    case 'end': {
      const ending = lines.get(request.call);
      if (!ending) return { mos: null, audio: [] };
      try {
        return await ending.end(request.mode);
      } finally {
        lines.delete(request.call);
      }
    }
  }
}

const cpuTimer = setInterval(() => {
  const { user, system } = process.cpuUsage();
  send({ event: 'cpu', micros: user + system });
}, CPU_REPORT_MS);

// The Artillery worker is gone: end every call (immediately) and let the loop empty, so the
// emulator's exit guard finalizes the wrtc objects before the environment is torn down.
serveParent(handle, () => {
  clearInterval(cpuTimer);
  for (const l of lines.values()) void l.end('immediate').catch(() => undefined);
  lines.clear();
});
