/**
 * `kb-voice-emulator`: a local emulator of the knowledge-base assistant service for development and
 * QA — the HTTP API of E1–E20 with realtime voice signaling, seeded data, fault injection and an
 * OpenAPI document. Start it with {@link startEmulator} or the `kb-voice-emulator` command.
 */
export { startEmulator, DEFAULT_API_KEY, DEFAULT_AGENT_BUILD_MS, type Emulator, type EmulatorOptions } from './server.js';
export { createEmulatorApp } from './app.js';
export { DEFAULT_MAX_BODY_BYTES } from './http/body-limit.js';
export { DEFAULT_MAX_REALTIME_SESSIONS, DEFAULT_RESUME_WINDOW_MS } from './realtime/index.js';
export { FIXTURE_IDS, type Fixtures } from './fixtures/seed.js';
export { answerFromDataset, estimateTokens, type KnowledgeAnswer } from './knowledge.js';
export { PRICE_TABLE, COST_CATEGORIES, REALTIME_MODEL, AUDIO_TOKENS_PER_SECOND, audioTokens, costItems, totalCost, type CostCategory, type TokenCounts } from './pricing.js';
export { openApiDocument } from './openapi.js';
export { buildPdf, type PdfLine, type PdfPageSpec } from './pdf/build.js';
export { extractText, type PageText, type TextRun } from './pdf/text.js';
export { createMemoryStore, MemoryCollection, MemorySessions } from './memory-collection.js';
export {
  FakeMicrophone, FakeMicrophoneError, type FakeMicrophoneStream, type FakeMicrophoneOptions, type PlayWavOptions, type NoiseOverlayOptions, type SayOptions,
} from './fake-microphone.js';
export { NOISE_NAMES, NOISE_FIXTURES, generateNoise, mixAtSnr, noiseAtSnr, type NoiseName, type NoiseOptions } from './lab/noise.js';
export { DEFAULT_INTERRUPTIONS, type InterruptionSettings } from './realtime/barge-in.js';
export { ScriptQueue, MAX_SCRIPT_UTTERANCES, MAX_SCRIPT_UTTERANCE_CHARS, MAX_SCRIPTED_SESSIONS, type ScriptSnapshot } from './script.js';
export { synthesizeFlite, synthesizeFormant, speechSentences, fliteSpeaks, FliteError, FLITE_VOICES, VOICE_CHOICES, type FliteVoice, type VoiceChoice } from './realtime/index.js';
export type {
  Store, Collection, SessionCollection, RobotRecord, DatasetRecord, FileRecord, LinkRecord, IntegrationRecord, SessionRecord,
  MessageRecord, UsageRecord, AudioRecord,
} from './store.js';
export type { EmulatorContext, AgentBuilder, Faults } from './context.js';
export type { ServerContext } from './http/server-context.js';
export type { RealtimeService, RealtimeServiceOptions, RealtimeOffer, RealtimeCallIn, Brain } from './realtime/index.js';
