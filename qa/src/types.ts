import type { CallQuality, QualityLevel, QualityReport, SessionReport, SessionSnapshot, Turn, VoiceSessionOptions } from 'kb-voice';

export type { QualityLevel, QualityReport };

/** Call quality as `VoiceSession` measures it (CONTRACT.md "Call quality"). */
export type Quality = CallQuality;

/**
 * A finished turn as the test sees it. `perceivedLatencyMs` is null where not measured (and
 * absent from pages whose kb-voice predates it: read it as "not measured").
 */
export type CallTurn = Turn;

/** What `call.end()` resolves with: `VoiceSession.report()`, `quality` null where the page's kb-voice does not measure it. */
export type CallReport = Omit<SessionReport, 'quality' | 'preConnect'> & { quality: QualityReport | null; preConnect?: SessionReport['preConnect'] };

/** An error as the page sends it (JSON): its name, stable `code` and message. */
export interface PlainError {
  name?: string;
  code?: string;
  message: string;
}

/** A value as JSON from the page: errors become `PlainError`, functions are dropped. */
export type Plain<T> = T extends Error
  ? PlainError
  : T extends (...args: never[]) => unknown
    ? never
    : T extends readonly (infer U)[]
      ? Plain<U>[]
      : T extends object
        ? { [K in keyof T]: Plain<T[K]> }
        : T;

/** The fields every page's kb-voice sends; the others may be absent (a page built with an older kb-voice). */
type CoreSnapshotField = 'status' | 'state' | 'warmup' | 'muted' | 'turns' | 'live' | 'userSpeaking' | 'assistantSpeaking' | 'playbackBlocked';

/**
 * `call.session`: the session's latest snapshot, as JSON: kb-voice's `SessionSnapshot` (derived
 * from it, so a status or field added there is here too), errors as `{ code, message }`.
 */
export type CallSnapshot = Plain<Pick<SessionSnapshot, CoreSnapshotField>> & Partial<Plain<Omit<SessionSnapshot, CoreSnapshotField>>>;

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
      /**
       * Origins besides the relay's (and `emulatorUrl`'s) that the service's recordings may be
       * downloaded from into the test's artifacts: its storage's presigned URLs, e.g.
       * `['https://recordings.example.com']`. A recording anywhere else is not downloaded (the
       * evidence says so): the URLs come from the service, the runner sits inside your network.
       */
      recordingOrigins?: string[];
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
  /**
   * `true`: leave the robot cold, so the worker's first call pays `agentBuildMs` (for tests of the
   * build itself). Default `false`: the worker warms the robot (E1) before its first test.
   */
  coldRobot?: boolean;
  /** The emulator's answer voice (default `auto`: Flite for English). */
  voice?: 'auto' | 'flite' | 'espeak' | 'builtin';
  /** A network profile of kb-voice-emulator/lab for every call's media (the `network` fixture option sets it). */
  network?: string;
  /**
   * The silence (ms) after which the emulator takes a spoken question as ended (its voice detection's
   * end of speech; default 600, an integer 100–10000). A loaded machine can stall a page's fake
   * microphone longer than 600 ms and split one spoken question in two (the second piece then cuts
   * the first one's answer); 1500–2000 keeps it whole, and every spoken answer starts that much later.
   */
  endOfSpeechMs?: number;
}

/** `voiceCall.start(options)`: the `VoiceSession` options that make sense in a harness page. */
export interface CallOptions {
  language?: string;
  /** `'auto'`, `'off'` or `{ mode, minSpeechMs, resumeAfterMs }` (CONTRACT.md "Turn-taking and noise"). */
  interruptions?: VoiceSessionOptions['interruptions'];
  /** `false`: text questions only (no microphone is asked for); or getUserMedia audio constraints. */
  microphone?: false | MediaTrackConstraints;
  userIdentifier?: string;
  connectTimeoutMs?: number;
  gracefulEndTimeoutMs?: number;
  iceServers?: RTCIceServer[];
  /** The pre-connect buffer (`VoiceSession`'s option, default on): `false` turns it off. */
  preConnectBuffer?: boolean | { maxMs?: number };
  /**
   * Harness calls: the caller is already speaking at the click — this is played into the fake
   * microphone right after Start is clicked, from its speech onset (the clip's silent lead-in is
   * cut), while the call connects (as `say()` would, its words scripted on the emulator). `expect(call).toHaveHeardFromStart()` checks it arrived whole.
   */
  sayAtStart?: Utterance;
}

/** What `call.say()` takes: text for the built-in TTS, or a WAV file. */
export type Utterance = string | { wav: string; transcript?: string };

/**
 * A noise for `call.noise()` and `call.say(text, { noise })`: a fixture of kb-voice-emulator/lab by
 * name (`beeps`, `tones`, `cough`, `keyboard`, `fan`, `hum`, `music`, `babble`, `cafe`; needs
 * kb-voice-emulator), or an audio file (`{ wav: path }`, any format Chromium decodes).
 */
export type NoiseSource = string | { wav: string };

/** `call.noise(source, options)`. */
export interface CallNoiseOptions {
  /**
   * Level in dB under the nominal speech level (-26 dBFS, ITU-T P.56): 10 is 10 dB quieter than a
   * caller speaking normally. A named noise defaults to 10; a file plays as recorded unless given.
   */
  snrDb?: number;
  /** Length of a named noise (ms; default 2000, at most 60000). A file plays whole. */
  durationMs?: number;
  /** Seed of a named noise (default 1): the same seed, the same sound. */
  seed?: number;
}

/** `call.say(utterance, options)`: a noise under the words. */
export interface SayOptions {
  /** Played under the words, looped or cut to their length. */
  noise?: NoiseSource;
  /** Speech-to-noise ratio (dB) against the words' own level. Default 10. */
  snrDb?: number;
  /** Seed of a named noise (default 1). */
  seed?: number;
}

/** What reached the caller of one answer, as the page measured it. */
export interface HeardAnswer {
  /** How long the answer was audible (ms, `assistantSpeaking`); null where not measured. */
  ms: number | null;
  /** Its words as they were spoken (for a cut answer, its captions up to the cut; else the answer). */
  text: string;
}

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
  /** Each audio attachment: its segment, what it holds (`turn 1 · question`, or `segment 3` where unknown) and length. */
  segments?: AudioEvidence[];
  /** When the call started (ISO 8601). */
  startedAt?: string;
  /** The worker's network profile (`network` option), null for loopback as it is or a real service. */
  network?: string | null;
  /** Where the call went: the relay, and whether an emulator was behind it (scripted transcripts). */
  target?: { relayUrl: string; emulator: boolean };
  /** What the caller heard of each finished turn's answer, by message id (cut answers: up to the cut). */
  heard?: Array<{ messageId: string; turnId: number } & HeardAnswer>;
  error?: string;
}

/** One recorded audio segment of a call, as attached. */
export interface AudioEvidence {
  name: string;
  segment: number;
  /** `turn 2 · question`, `turn 2 · answer`, or `segment 3` when the segments do not line up with the turns. */
  label: string;
  durationMs: number | null;
}
