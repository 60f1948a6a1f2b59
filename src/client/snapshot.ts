import type { DeviceList } from './devices.js';
import type { VoiceSessionError } from './errors.js';
import type { LiveTranscript, SessionEvents, Turn } from './events.js';
import type { NoiseSuppressionStatus } from './noise/suppression.js';
import { UNKNOWN_QUALITY, type CallQuality } from './quality/sample.js';
import type { SessionState, SessionStatus, WarmupStatus } from './state.js';
import type { IceSignaling } from './transport.js';

/**
 * Everything a UI shows about a session, frozen (built by {@link SnapshotCache}); each field changes
 * with one of the {@link SessionEvents}, and {@link idleSnapshot} below gives each its value before a call
 * (the compiler names a new field there). `session.getSnapshot()` returns the same object
 * until something observable changes, then a new one (what `useSyncExternalStore` expects).
 * Audio levels are not part of it: they change 10 times a second (listen to `level`).
 */
export interface SessionSnapshot {
  readonly status: SessionStatus;
  readonly state: SessionState;
  readonly warmup: WarmupStatus;
  readonly muted: boolean;
  /** The service's session id, once signaling answered. */
  readonly sessionId: string | undefined;
  /** Finished turns, in order (a new array whenever one is added). */
  readonly turns: readonly Turn[];
  /** The transcript of the turn in progress; null between turns. */
  readonly live: LiveTranscript | null;
  readonly userSpeaking: boolean;
  readonly assistantSpeaking: boolean;
  /** The browser blocked the assistant's audio: offer a button that calls `resumePlayback()`. */
  readonly playbackBlocked: boolean;
  /** The last error reported (also while the call goes on, e.g. `protocol_error`); undefined if none. */
  readonly error: VoiceSessionError | undefined;
  /**
   * How the current connection's ICE candidates reach the service: `trickle`, `fallback` (the
   * service refused PATCH: complete offers after at most the transport's `gatherTimeoutMs`) or
   * `complete` (trickle off); undefined before the first offer.
   */
  readonly iceSignaling: IceSignaling | undefined;
  /** The audio inputs and outputs the browser lists, kept up to date during a call (`devicechange`); undefined before the call or without `navigator.mediaDevices`. */
  readonly devices: DeviceList | undefined;
  /** True when this call continued a session of an earlier page (`resume: true`, the service said `resumed`). */
  readonly resumed: boolean;
  /** The call's quality over the last few seconds; `level: 'unknown'` and nulls until measured. */
  readonly quality: CallQuality;
  /** What cleans the microphone: the `noiseSuppression` asked for, what runs, and why not when they differ. */
  readonly noiseSuppression: NoiseSuppressionStatus;
  /** Push-to-talk: the caller holds talk (`talk(true)`); always false in `auto` turn-taking. */
  readonly talking: boolean;
}

/** Before a call nothing cleans the microphone yet: the browser's default is what a call starts from. */
const IDLE_NOISE = Object.freeze({ requested: 'browser', active: 'browser', gate: false } as const);

/** The snapshot before the first call (a UI binding shows it: SessionHolder); `muted`: the mute chosen beforehand. */
export function idleSnapshot(muted: boolean): SessionSnapshot {
  const idle: SessionSnapshot = {
    status: 'idle', state: Object.freeze({ status: 'idle' }), warmup: 'idle', muted, sessionId: undefined,
    turns: Object.freeze([]), live: null, userSpeaking: false, assistantSpeaking: false, playbackBlocked: false, error: undefined,
    iceSignaling: undefined, devices: undefined, resumed: false, quality: UNKNOWN_QUALITY, noiseSuppression: IDLE_NOISE, talking: false,
  };
  return Object.freeze(idle);
}

/** Builds frozen snapshots, sharing the turns array between snapshots until a turn is added or replaced (its sources read), and tells its subscribers of each change. */
export class SnapshotCache {
  private current: SessionSnapshot | undefined;
  private readonly subscribers = new Set<() => void>();
  private turns: readonly Turn[] = Object.freeze([]);

  constructor(private readonly read: () => Omit<SessionSnapshot, 'turns'> & { turnsSource: readonly Turn[] }) {}

  get(): SessionSnapshot {
    if (this.current) return this.current;
    const { turnsSource, ...rest } = this.read();
    // Turn objects are frozen when created; the array is copied only when one was added or replaced (turns are never removed).
    if (turnsSource.some((t, i) => t !== this.turns[i])) this.turns = Object.freeze([...turnsSource]);
    this.current = Object.freeze({ ...rest, turns: this.turns });
    return this.current;
  }

  /** Something observable changed: the next get() builds a new snapshot. */
  invalidate(): void {
    this.current = undefined;
  }

  /** Calls `listener` after every {@link changed}; returns the unsubscribe function (each subscription is its own, even for the same function). */
  subscribe(listener: () => void): () => void {
    const entry = () => listener();
    this.subscribers.add(entry);
    return () => void this.subscribers.delete(entry);
  }

  /** Tells the subscribers (after the change was invalidated and emitted). */
  changed(): void {
    for (const listener of [...this.subscribers]) listener();
  }
}
