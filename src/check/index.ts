/**
 * `kb-voice/check`: the pre-call check (docs/check.md). A separate entry so that pages without a
 * "Test my setup" button ship none of it: `const { checkCall } = await import('kb-voice/check')`.
 */
export { checkCall, CHECK_TIMEOUT_MS, MAX_CHECK_TIMEOUT_MS, type CheckCallOptions } from './check-call.js';
export { gradeNetwork, countCandidates, parseCandidate, type GatheredCandidate } from './network.js';
export { gradeQuality, selectedPath } from './connection.js';
export { SILENCE_LEVEL } from './microphone.js';
export { SLOW_SERVICE_MS } from './service.js';
export type { CallCheckResult, CandidateCounts, CheckGrade, CheckPart, ConnectionCheck, MicrophoneCheck, NetworkCheck, ServiceCheck } from './types.js';
