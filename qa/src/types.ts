import type { SessionReport, Turn } from 'kb-voice';

/** Call quality as `VoiceSession` measures it (CONTRACT.md "Call quality"). */
export type QualityLevel = 'excellent' | 'good' | 'fair' | 'poor' | 'unknown';

export interface Quality {
  level: QualityLevel;
  mos: number | null;
  rttMs: number | null;
  jitterMs: number | null;
  packetLossPct: number | null;
}

/** `report().quality` (CONTRACT.md): null where the kb-voice in the page does not measure quality. */
export interface QualityReport {
  samples: number;
  mos: { min: number | null; mean: number | null };
  rttMs: { p50: number | null; p95: number | null };
  jitterMs: { p50: number | null; p95: number | null };
  packetLossPct: { mean: number | null; max: number | null };
  reconnects: number;
}

/** A finished turn as the test sees it; `perceivedLatencyMs` is null where not measured. */
export type CallTurn = Turn & { perceivedLatencyMs?: number | null };

/** What `call.end()` resolves with: `VoiceSession.report()`, quality included (null when absent). */
export type CallReport = Omit<SessionReport, 'turns'> & { turns: CallTurn[]; quality: QualityReport | null };

/** `call.session`: the session's latest snapshot, as JSON (errors as `{ code, message }`). */
export interface CallSnapshot {
  status: 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'ended' | 'failed';
  state: { status: string; sessionId?: string; reason?: string; error?: { code?: string; message: string } };
  warmup: 'idle' | 'pending' | 'ok' | 'failed';
  muted: boolean;
  sessionId?: string;
  turns: CallTurn[];
  live: { turnId: number; user: string; assistant: string } | null;
  userSpeaking: boolean;
  assistantSpeaking: boolean;
  playbackBlocked: boolean;
  error?: { code?: string; message: string };
  quality?: Quality | null;
}

/** The `voice` fixture option. */
export type VoiceOptions =
  | {
      /** The relay (or service) base URL the calls use, e.g. `http://127.0.0.1:8788/api/voice`. */
      relayUrl: string;
      /** The robot. */
      aiId: string;
      /** Default language of calls (default `en`). */
      language?: string;
      /**
       * The emulator behind the relay, when there is one: then `say()` also scripts the words it
       * recognizes (`PUT /_emulator/script`). Without it, the service's own recognizer listens.
       */
      emulatorUrl?: string;
    }
  | {
      /** An emulator and a relay for each Playwright worker (needs kb-voice-emulator installed). */
      emulator: true | WorkerEmulatorOptions;
      language?: string;
    };

/** Settings of the per-worker emulator. */
export interface WorkerEmulatorOptions {
  /** What the first task of a robot without warmup pays (the emulator's default: 5700 ms). */
  agentBuildMs?: number;
  /** The emulator's answer voice (default `auto`: Flite for English). */
  voice?: 'auto' | 'flite' | 'espeak' | 'builtin';
}

/** `voiceCall.start(options)`: the `VoiceSession` options that make sense in a harness page. */
export interface CallOptions {
  language?: string;
  interruptions?: 'auto' | 'off';
  /** `false`: text questions only (no microphone is asked for); or getUserMedia audio constraints. */
  microphone?: false | MediaTrackConstraints;
  userIdentifier?: string;
  connectTimeoutMs?: number;
  gracefulEndTimeoutMs?: number;
  iceServers?: RTCIceServer[];
}

/** What `call.say()` takes: text for the built-in TTS, or a WAV file. */
export type Utterance = string | { wav: string; transcript?: string };

/** The content of each `voice-call.json` attachment (what the reporter reads). */
export interface VoiceCallEvidence {
  kind: 'kb-voice-qa/call';
  version: 1;
  /** The call's number within its test, from 1. */
  call: number;
  /** Null when the report could not be fetched (see `error`). */
  report: CallReport | null;
  turns: CallTurn[];
  latency: { firstResponseMs: number[]; perceivedLatencyMs: number[] };
  quality: QualityReport | null;
  /** Names of this call's audio attachments. */
  audio: string[];
  error?: string;
}
