/** The browser session controller: one {@link VoiceSession} per voice call. */
export { VoiceSession } from './session.js';
export type { VoiceSessionOptions, EndOptions } from './options.js';
export { VoiceSessionError, type VoiceErrorCode } from './errors.js';
export type { SessionState, SessionStatus, WarmupStatus, EndReason, ReconnectHow, ReconnectCause } from './state.js';
export type { AudioDevice, DeviceList } from './devices.js';
export { jitteredBackoff, type ReconnectPolicy, type ReconnectContext, type JitteredBackoffOptions } from './reconnect-policy.js';
export type { Clock } from '../clock.js';
export type { SessionEvents, Turn, TranscriptUpdate, AudioLevels, LiveTranscript, TalkOutcome } from './events.js';
export { TIMING_PHASES, type TurnTiming, type TimingPhase } from './timing/phases.js';
export type { SessionSnapshot } from './snapshot.js';
export type {
  Transport, TransportProvider, TransportEvents, TransportOptions, SignalingAnswer, IceSignaling, SignalingResource,
} from './transport.js';
export type { RealtimeProtocol, RealtimeProtocolCodec, SignalingRequest, Dialect, DialectCodec } from './realtime-protocol.js';
export { simplePeerTransport, type SimplePeerTransportOptions, type WrtcImplementation } from './peer.js';
export { v1Protocol } from './protocol.js';
export { openaiProtocol, type OpenAIProtocolOptions } from './openai/index.js';
export type { ReportErrors, SessionReport, VoiceReport, VoiceSessionApi } from './report.js';
export type { MicrophoneSource } from './media.js';
export type { PcmCapture, PreConnectBufferOption, PreConnectReport } from './pre-connect-options.js';
export { VOICE_PROCESSING } from './media.js';
export type { LevelMeter, LevelMeterFactory } from './levels.js';
export type { CallQuality, QualitySample, QualityReport, QualityLevel, QualityOptions, PerceivedLatencyOptions } from './quality/index.js';
export { estimateMos, qualityLevel, LEVEL_THRESHOLDS, PERCEIVED_LATENCY_DEFAULTS } from './quality/index.js';
export type { NoiseSuppressionMode, NoiseSuppressionStatus, NoiseFallbackReason, NoiseAssets, NoiseModule, NoiseProcessing } from './noise/suppression.js';
export type { VoiceGateOptions } from './noise/voice-gate.js';
export type { InterruptedBy, InterruptionCounts } from './interruptions.js';
export type { InterruptionsOption } from './realtime-protocol.js';
export type { Source, MessagesApi, SourcesFeature, TurnRating } from './sources/api.js';
