import type { EndOptions, VoiceSessionOptions } from './options.js';
import { VoiceSessionError } from './errors.js';
import type { SessionReport } from './report.js';
import { VoiceSession } from './session.js';
import { idleSnapshot, type SessionSnapshot } from './snapshot.js';
import { isFinal } from './state.js';

const noCall = () => new VoiceSessionError('not_connected', 'No call yet: call start() first');

/**
 * "One VoiceSession per call" for a UI binding — the React hook and `<kb-voice-widget>` both use
 * it: start() after an ended (or failed) call makes the next session, one subscription follows the
 * current session, and the user's mute choice carries into the next call (muted at the end of a
 * call, or chosen before one: the next call starts muted, so a microphone the user silenced is
 * never reopened live without them asking).
 */
export class SessionHolder {
  private current: VoiceSession | undefined;
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;
  private _muted = false;
  /** The output chosen with setOutputDevice(), applied to every later call too. */
  private output: string | undefined;
  private idle = idleSnapshot(false);
  private mounts = 0;

  /**
   * `options` is read when a call starts; `made` hears every new session before it starts (to
   * forward its events, say).
   */
  constructor(private readonly options: () => VoiceSessionOptions, private readonly made?: (session: VoiceSession) => void) {}

  /** The current (or last) call's session; undefined before the first call. */
  get session(): VoiceSession | undefined {
    return this.current;
  }

  /** True while a call is connecting, connected, reconnecting or ending (start() then returns that call's start()). */
  get busy(): boolean {
    return this.current !== undefined && this.current.state.status !== 'idle' && !isFinal(this.current.state);
  }

  /** The mute choice: the current call's, or the one the next call starts with. */
  get muted(): boolean {
    return this._muted;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): SessionSnapshot => this.current?.getSnapshot() ?? this.idle;

  /** Starts a call (a new session unless one is in progress); never rejects: failures are in the snapshot. */
  start(): Promise<void> {
    let session = this.current;
    if (!session || isFinal(session.state)) {
      session = new VoiceSession(this.options());
      if (this._muted) session.mute();
      if (this.output !== undefined) void session.setOutputDevice(this.output).catch(() => undefined);
      this.unsubscribe?.();
      const mine = session;
      const offState = session.subscribe(this.notify);
      const onMute = (muted: boolean) => (this._muted = muted);
      mine.on('mute', onMute);
      this.unsubscribe = () => (offState(), mine.off('mute', onMute));
      this.current = session;
      this.made?.(session);
      this.notify();
    }
    return session.start().catch(() => undefined);
  }

  /** Ends the current call, if any; never rejects. */
  end(options?: EndOptions): Promise<void> {
    return this.current?.end(options) ?? Promise.resolve();
  }

  /**
   * A UI using the holder mounted; the returned function is its unmount. The call ends (at once)
   * only when no mount is left a microtask later, so a move or StrictMode's unmount + immediate
   * remount keeps it.
   */
  attach(): () => void {
    this.mounts++;
    let detached = false;
    return () => {
      if (detached) return;
      detached = true;
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

  /** Push-to-talk of the current call (`talk(false)` without a call does nothing). */
  talk(on: boolean): void {
    if (on) this.require().talk(true);
    else this.current?.talk(false);
  }

  report(): Promise<SessionReport> {
    return this.current ? this.current.report() : Promise.reject(noCall());
  }

  resumePlayback(): Promise<void> {
    return this.current?.resumePlayback() ?? Promise.resolve();
  }

  /** Switches the current call's microphone (`not_connected` without a call). */
  setInputDevice(deviceId: string): Promise<void> {
    return this.current ? this.current.setInputDevice(deviceId) : Promise.reject(noCall());
  }

  /**
   * Routes the answers to an output device, now and in later calls. Before any call it only checks
   * that the browser can (`not_supported` otherwise) and keeps the choice.
   */
  async setOutputDevice(deviceId: string): Promise<void> {
    if (this.current) await this.current.setOutputDevice(deviceId);
    else if (typeof HTMLMediaElement === 'undefined' || !('setSinkId' in HTMLMediaElement.prototype)) {
      throw new VoiceSessionError('not_supported', 'This browser cannot choose the audio output device (no HTMLMediaElement.setSinkId)');
    }
    this.output = deviceId;
  }

  /** Mutes or unmutes the current call; with none in progress, the choice applies to the next. */
  setMuted(muted: boolean): void {
    this._muted = muted;
    if (this.current) {
      if (muted) this.current.mute();
      else this.current.unmute();
    } else {
      this.idle = idleSnapshot(muted);
      this.notify();
    }
  }

  private require(): VoiceSession {
    if (!this.current) throw noCall();
    return this.current;
  }

  private readonly notify = (): void => {
    for (const listener of [...this.listeners]) listener();
  };
}
