import type { TestInfo } from '@playwright/test';
import type { AudioEvidence, CallReport, CallTurn, VoiceCallEvidence } from './types.js';

/** What the call was, beside its report: for the reporter's header of each call. */
export interface CallFacts {
  startedAt: string;
  network: string | null;
  target: { relayUrl: string; emulator: boolean };
  heard?: VoiceCallEvidence['heard'];
}

/**
 * What each recorded segment holds. The service records one segment per caller utterance and one
 * per answer, in order (E14 does not say which is which): a spoken turn gives a question and an
 * answer, a typed one an answer. Where the count does not line up (a segment lost, an utterance
 * without a turn), every segment is just `segment N`.
 */
export function segmentLabels(turns: readonly CallTurn[], count: number): string[] {
  const labels = turns.flatMap((t) => (t.input === 'voice' ? [`turn ${t.id} · question`, `turn ${t.id} · answer`] : [`turn ${t.id} · answer`]));
  return labels.length === count ? labels : Array.from({ length: count }, (_, i) => `segment ${i}`);
}

/** `voice-call-1-0-turn-1-question.wav` from a label. */
const fileLabel = (label: string) => label.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();

/** Name of the attachment each call leaves on the test result (the reporter reads it). */
export const EVIDENCE_NAME = 'voice-call.json';

/** Most audio bytes one call attaches (its recorded segments); beyond it, segments are skipped and said so. */
export const MAX_AUDIO_BYTES = 50 * 1024 * 1024;

/**
 * Whether a recording at `url` may be downloaded by the runner: only http(s) on one of `origins`
 * (the relay's, the emulator's, and those the `voice` option's `recordingOrigins` names). The URLs
 * come from the service's report, and the runner sits inside the tester's network: anything else
 * (an internal address, a cloud metadata endpoint) would end up in the test's artifacts.
 */
export function recordingAllowed(url: string, origins: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  return origins.some((o) => {
    try {
      return new URL(o).origin === target.origin;
    } catch {
      return false;
    }
  });
}

/**
 * Attaches a call's evidence to the test result: `voice-call.json` (report, turns, latencies,
 * quality) and the recorded audio segments (the service's presigned WAVs, E14) as
 * `voice-call-<call>-<segment>-<turn N question|answer>.wav`. Never throws: what could not be fetched is noted in the JSON.
 * Recordings are downloaded only from the relay's origin (`facts.target.relayUrl`) and `origins`
 * ({@link recordingAllowed}), without following redirects.
 */
export async function attachEvidence(
  testInfo: TestInfo,
  call: number,
  report: CallReport | null,
  turns: readonly CallTurn[],
  reportError: string | undefined,
  facts?: CallFacts,
  origins: readonly string[] = [],
): Promise<VoiceCallEvidence> {
  const allowed = [...(facts ? [facts.target.relayUrl] : []), ...origins];
  const problems: string[] = reportError ? [reportError] : [];
  const audio: string[] = [];
  const segments: AudioEvidence[] = [];
  let bytes = 0;
  const recorded = report?.audio ?? [];
  const labels = segmentLabels(report?.turns ?? turns, recorded.length);
  for (const [i, segment] of recorded.entries()) {
    const label = labels[i]!;
    const name = `voice-call-${call}-${segment.segment_index}-${fileLabel(label)}.wav`;
    if (!recordingAllowed(segment.url, allowed)) {
      problems.push(`audio segment ${segment.segment_index} not downloaded: its URL is not on the relay's or the service's origin (${originOf(segment.url)}; voice option recordingOrigins)`);
      continue;
    }
    try {
      // A redirect could lead anywhere: not followed (a 3xx is reported like any other failure).
      const response = await fetch(segment.url, { redirect: 'manual' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = Buffer.from(await response.arrayBuffer());
      if (bytes + body.length > MAX_AUDIO_BYTES) {
        problems.push(`audio segment ${segment.segment_index} skipped: over ${MAX_AUDIO_BYTES} bytes of audio`);
        continue;
      }
      bytes += body.length;
      await testInfo.attach(name, { body, contentType: 'audio/wav' });
      audio.push(name);
      segments.push({ name, segment: segment.segment_index, label, durationMs: typeof segment.duration_ms === 'number' ? segment.duration_ms : null });
    } catch (error) {
      problems.push(`audio segment ${segment.segment_index} not downloaded: ${(error as Error).message}`);
    }
  }
  const finished = report?.turns ?? [...turns];
  const numbers = (pick: (t: CallTurn) => number | null | undefined) =>
    finished.map(pick).filter((v): v is number => typeof v === 'number');
  const evidence: VoiceCallEvidence = {
    kind: 'kb-voice-qa/call',
    version: 1,
    call,
    report,
    turns: finished,
    latency: { firstResponseMs: numbers((t) => t.firstResponseMs), perceivedLatencyMs: numbers((t) => t.perceivedLatencyMs) },
    quality: report?.quality ?? null,
    audio,
    segments,
    ...(facts ?? {}),
    ...(problems.length ? { error: problems.join('; ') } : {}),
  };
  await testInfo.attach(EVIDENCE_NAME, { body: JSON.stringify(evidence, null, 2), contentType: 'application/json' });
  return evidence;
}

/** The origin of `url` for a message, or that it is not a URL. */
function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : `${parsed.protocol} URL`;
  } catch {
    return 'not a URL';
  }
}
