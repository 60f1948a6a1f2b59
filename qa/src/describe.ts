import { describePhases } from './phases.js';
import type { CallSnapshot, CallTurn } from './types.js';

/** `812 ms` or `not measured`. */
export function ms(value: number | null | undefined): string {
  return typeof value === 'number' ? `${Math.round(value)} ms` : 'not measured';
}

/** One line about a turn's latency: first response (service) and perceived (at the caller). */
export function latencyOf(turn: CallTurn): string {
  const phases = describePhases(turn);
  return `first response ${ms(turn.firstResponseMs)}, perceived ${ms(turn.perceivedLatencyMs)}${phases ? ` (${phases})` : ''}`;
}

function quote(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

/**
 * What was heard, for failure messages: every finished turn (question, answer, latency), the
 * turn in progress, the call's status and its last error.
 */
export function transcriptSoFar(turns: readonly CallTurn[], snapshot: CallSnapshot | undefined): string {
  const lines = ['Transcript so far:'];
  if (turns.length === 0) lines.push('  (no finished turn)');
  for (const turn of turns) {
    lines.push(`  ${turn.id}. caller (${turn.input}${turn.scripted ? ', scripted' : ''}): ${quote(turn.question)}`);
    lines.push(`     robot: ${quote(turn.answer)}${turn.interrupted ? ' (interrupted)' : ''}`);
    lines.push(`     ${latencyOf(turn)}`);
  }
  const live = snapshot?.live;
  // `live` can still hold the turn that just finished until the next one starts.
  const finished = turns.some((t) => t.id === live?.turnId && (t.answer === live.assistant || !live.assistant));
  if (live && (live.user || live.assistant) && !finished) {
    lines.push(`  in progress: caller ${quote(live.user)}, robot ${quote(live.assistant)}`);
  }
  if (snapshot) {
    const reason = 'reason' in snapshot.state ? ` (${snapshot.state.reason})` : '';
    lines.push(`Call: ${snapshot.status}${reason}${snapshot.sessionId ? `, session ${snapshot.sessionId}` : ''}`);
    if (snapshot.error) lines.push(`Last error: ${snapshot.error.code ?? 'error'}: ${snapshot.error.message}`);
  }
  return lines.join('\n');
}

/** `Heard: "answer" (turn 2, first response 812 ms, perceived 905 ms)`. */
export function heard(turn: CallTurn): string {
  return `Heard: ${quote(turn.answer, 1000)}\n  (turn ${turn.id}, asked ${quote(turn.question)}; ${latencyOf(turn)})`;
}
