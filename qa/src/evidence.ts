import type { TestInfo } from '@playwright/test';
import type { CallReport, CallTurn, VoiceCallEvidence } from './types.js';

/** Name of the attachment each call leaves on the test result (the reporter reads it). */
export const EVIDENCE_NAME = 'voice-call.json';

/** Most audio bytes one call attaches (its recorded segments); beyond it, segments are skipped and said so. */
export const MAX_AUDIO_BYTES = 50 * 1024 * 1024;

/**
 * Attaches a call's evidence to the test result: `voice-call.json` (report, turns, latencies,
 * quality) and the recorded audio segments (the service's presigned WAVs, E14) as
 * `voice-call-<call>-<segment>.wav`. Never throws: what could not be fetched is noted in the JSON.
 */
export async function attachEvidence(
  testInfo: TestInfo,
  call: number,
  report: CallReport | null,
  turns: readonly CallTurn[],
  reportError: string | undefined,
): Promise<VoiceCallEvidence> {
  const problems: string[] = reportError ? [reportError] : [];
  const audio: string[] = [];
  let bytes = 0;
  for (const segment of report?.audio ?? []) {
    const name = `voice-call-${call}-${segment.segment_index}.wav`;
    try {
      const response = await fetch(segment.url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = Buffer.from(await response.arrayBuffer());
      if (bytes + body.length > MAX_AUDIO_BYTES) {
        problems.push(`audio segment ${segment.segment_index} skipped: over ${MAX_AUDIO_BYTES} bytes of audio`);
        continue;
      }
      bytes += body.length;
      await testInfo.attach(name, { body, contentType: 'audio/wav' });
      audio.push(name);
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
    ...(problems.length ? { error: problems.join('; ') } : {}),
  };
  await testInfo.attach(EVIDENCE_NAME, { body: JSON.stringify(evidence, null, 2), contentType: 'application/json' });
  return evidence;
}
