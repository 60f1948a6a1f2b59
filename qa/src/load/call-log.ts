import { appendFile } from 'node:fs/promises';
import type { CallTurn } from '../types.js';

/** One load call as the report shows it (a line of the calls file, JSON Lines). */
export interface LoadCallRecord {
  kind: 'kb-voice-qa/load-call';
  version: 1;
  /** `node` (VoiceSession over wrtc) or `browser` (Artillery's Playwright engine). */
  caller: 'node' | 'browser';
  scenario: string;
  userIdentifier: string;
  startedAt: string;
  durationMs: number;
  sessionId: string | null;
  connectMs: number | null;
  /** `ok`, or the error code Artillery counted (`errors.<code>`). */
  status: 'ok' | string;
  error: string | null;
  turns: Array<Pick<CallTurn, 'id' | 'input' | 'question' | 'answer' | 'firstResponseMs' | 'perceivedLatencyMs' | 'interrupted' | 'agentBuildMs'>>;
  mos: number | null;
  /** The recorded audio (the service's presigned URLs, E14): question and answer segments; they expire. */
  audio: Array<{ segment: number; url: string }>;
}

/** A line longer than this is cut to its transcript's first characters per turn (a call file stays readable). */
const MAX_TEXT_CHARS = 2000;

/** Appends `record` to the calls file (one JSON line; appends of one line from many workers do not interleave). */
export async function appendCallRecord(file: string, record: LoadCallRecord): Promise<void> {
  const trimmed = {
    ...record,
    turns: record.turns.map((t) => ({ ...t, question: t.question.slice(0, MAX_TEXT_CHARS), answer: t.answer.slice(0, MAX_TEXT_CHARS) })),
  };
  await appendFile(file, `${JSON.stringify(trimmed)}\n`);
}
