import type { EndOptions, VoiceSessionOptions } from '../client/options.js';
import { VoiceSessionError } from '../client/errors.js';
import type { SessionReport } from '../client/report.js';
import { VoiceSession } from '../client/session.js';
import type { SessionSnapshot } from '../client/snapshot.js';
import { UNKNOWN_QUALITY } from '../client/quality/sample.js';

/** The snapshot before the first call. */
function idleSnapshot(muted: boolean): SessionSnapshot {
  return Object.freeze({
    status: 'idle', state: Object.freeze({ status: 'idle' }), warmup: 'idle', muted, sessionId: undefined,
    turns: Object.freeze([]), live: null, userSpeaking: false, assistantSpeaking: false, playbackBlocked: false, error: undefined, iceSignaling: undefined,
    quality: UNKNOWN_QUALITY,
  });
}

/**
 * Holds the current call's VoiceSession for a UI binding: one new session per call (start() after
 * an ended call makes the next one), one subscription that follows the current session, and the
 * user's mute choice carried into the next call.
 */
export class SessionHolder {
  session: VoiceSession | undefined;
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;
  private muted = false;
  private idle = idleSnapshot(false);
  private mounts = 0;

  constructor(private readonly options: () => VoiceSessionOptions) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): SessionSnapshot => this.session?.getSnapshot() ?? this.idle;

  /** Starts a call (a new session unless one is in progress); never rejects: failures are in the snapshot. */
  start(): Promise<void> {
    let session = this.session;
    if (!session || session.state.status === 'ended' || session.state.status === 'failed') {
      session = new VoiceSession(this.options());
      if (this.muted) session.mute();
      this.unsubscribe?.();
      this.unsubscribe = session.subscribe(this.notify);
      this.session = session;
      this.notify();
    }
    return session.start().catch(() => undefined);
  }

  /** Ends the current call, if any; never rejects. */
  end(options?: EndOptions): Promise<void> {
    return this.session?.end(options) ?? Promise.resolve();
  }

  /**
   * A component using the holder mounted; the returned function is its unmount. The call ends only
   * when no mount is left a microtask later, so StrictMode's unmount + immediate remount keeps it.
   */
  attach(): () => void {
    this.mounts++;
    return () => {
      this.mounts--;
      queueMicrotask(() => {
        if (this.mounts === 0) void this.end({ mode: 'immediate' });
      });
    };
  }

  sendText(text: string): void {
    this.require().sendText(text);
  }

  interrupt(): void {
    this.require().interrupt();
  }

  report(): Promise<SessionReport> {
    return this.session ? this.session.report() : Promise.reject(noCall());
  }

  resumePlayback(): Promise<void> {
    return this.session?.resumePlayback() ?? Promise.resolve();
  }

  setMuted(muted: boolean): void {
    this.muted = muted;
    if (this.session) {
      if (muted) this.session.mute();
      else this.session.unmute();
    } else {
      this.idle = idleSnapshot(muted);
      this.notify();
    }
  }

  private require(): VoiceSession {
    if (!this.session) throw noCall();
    return this.session;
  }

  private readonly notify = (): void => {
    for (const listener of [...this.listeners]) listener();
  };
}

const noCall = () => new VoiceSessionError('not_connected', 'No call yet: call start() first');
