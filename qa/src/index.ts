/**
 * `kb-voice-qa`: voice-session QA as Playwright tests. `test` has the `voice` option and the
 * `voiceCall` fixture; `expect` has `toAnswer`, `toSay`, `toBeInterrupted`, `toRespondWithin` and `toHaveQuality`. The reporter
 * is `kb-voice-qa/reporter`. See docs/qa.md.
 */
export { test, type VoiceCallFixture, type VoiceWorkerOptions } from './fixtures.js';
export { expect } from './expect.js';
export { Call, DEFAULT_TURN_TIMEOUT_MS } from './call.js';
export { EVIDENCE_NAME, MAX_AUDIO_BYTES } from './evidence.js';
export { MAX_SAY_CHARS } from './speech.js';
export type { CutBy } from './cut.js';
export type {
  CallNoiseOptions, CallOptions, CallReport, CallSnapshot, CallTurn, HeardAnswer, NoiseSource, Quality, QualityLevel, QualityReport, SayOptions,
  Utterance, VoiceCallEvidence, VoiceOptions, WorkerEmulatorOptions,
} from './types.js';
