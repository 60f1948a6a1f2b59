import * as z from 'zod/mini';
import type { VoiceCallEvidence } from '../types.js';

/**
 * The reporter's edge: a `voice-call.json` attachment is read back from disk or from a merged blob
 * report, written by whatever kb-voice-qa ran the test (or edited by anyone), so every field the
 * page and summary.json use is checked here, and the page trusts the result. Objects stay loose
 * (newer versions add fields); what is read must have its type.
 */
const ms = z.nullable(z.number());
const optionalMs = z.optional(ms);

const Turn = z.looseObject({
  id: z.number(),
  input: z.string(),
  question: z.string(),
  answer: z.string(),
  messageId: z.nullable(z.string()),
  firstResponseMs: ms,
  perceivedLatencyMs: optionalMs,
  agentBuildMs: optionalMs,
  interrupted: z.boolean(),
  interruptedBy: z.optional(z.nullable(z.string())),
  falseInterruptions: z.optional(z.number()),
  scripted: z.optional(z.boolean()),
  timing: z.optional(z.nullable(z.record(z.string(), z.nullable(z.union([z.number(), z.string()]))))),
});

const Quality = z.looseObject({
  mos: z.looseObject({ mean: ms }),
  rttMs: z.looseObject({ p95: ms }),
  packetLossPct: z.looseObject({ max: ms }),
  reconnects: z.number(),
});

const Interruptions = z.looseObject({ byCaller: z.number(), byApp: z.number(), false: z.number() });

const Report = z.looseObject({
  sessionId: z.string(),
  turns: z.array(Turn),
  quality: z.nullable(Quality),
  interruptions: z.optional(Interruptions),
});

const Segment = z.looseObject({ name: z.string(), segment: z.number(), label: z.string(), durationMs: ms });
const Heard = z.looseObject({ messageId: z.string(), turnId: z.number(), ms, text: z.string() });

export const VoiceCallEvidenceSchema = z.looseObject({
  kind: z.literal('kb-voice-qa/call'),
  version: z.number(),
  call: z.number(),
  report: z.nullable(Report),
  turns: z.array(Turn),
  latency: z.looseObject({ firstResponseMs: z.array(z.number()), perceivedLatencyMs: z.array(z.number()) }),
  quality: z.nullable(Quality),
  audio: z.array(z.string()),
  segments: z.optional(z.array(Segment)),
  startedAt: z.optional(z.string()),
  network: z.optional(z.nullable(z.string())),
  target: z.optional(z.looseObject({ relayUrl: z.string(), emulator: z.boolean() })),
  heard: z.optional(z.array(Heard)),
  error: z.optional(z.string()),
});

/** What reading one attachment gave: the evidence, or why it is left out; `null` for JSON of another kind. */
export type EvidenceRead = { ok: true; evidence: VoiceCallEvidence } | { ok: false; problem: string } | null;

/**
 * Parses one `voice-call.json` body. JSON whose `kind` is not kb-voice-qa's is not ours (`null`);
 * ours that does not parse or fails the schema is `{ ok: false }`, naming the first problems.
 */
export function readEvidence(body: string): EvidenceRead {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
  if (typeof json !== 'object' || json === null || (json as { kind?: unknown }).kind !== 'kb-voice-qa/call') {
    return (json as { kind?: unknown } | null)?.kind === undefined ? { ok: false, problem: 'not a kb-voice-qa call record (no "kind")' } : null;
  }
  const parsed = VoiceCallEvidenceSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return { ok: false, problem: issues.join('; ') };
  }
  // Checked above for every field the reporter reads; the rest is carried as it came.
  return { ok: true, evidence: parsed.data as unknown as VoiceCallEvidence };
}
