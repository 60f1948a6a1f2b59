import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { EndOptions, VoiceSessionOptions } from '../client/options.js';
import type { SessionReport } from '../client/report.js';
import type { VoiceSession } from '../client/session.js';
import type { SessionSnapshot } from '../client/snapshot.js';
import { SessionHolder } from '../client/holder.js';
import { VoiceSessionError } from '../client/errors.js';
import type { TurnRating } from '../client/sources/api.js';

/** What {@link useVoiceSession} returns: the current call's snapshot and its controls. */
export interface VoiceSessionControls extends SessionSnapshot {
  /** Starts a call: a new VoiceSession when none is in progress. Never rejects: failures show as `status: 'failed'` and `error`. */
  start(): Promise<void>;
  /** Ends the call (graceful unless `{ mode: 'immediate' }`). Never rejects. */
  end(options?: EndOptions): Promise<void>;
  /** Mutes the microphone; before a call, the next call starts muted. */
  mute(): void;
  unmute(): void;
  /** Asks a typed question; throws `not_connected` (or a local ValidationError) like VoiceSession.sendText. */
  sendText(text: string): void;
  /** Stops the current answer; throws `not_connected` unless connected. */
  interrupt(): void;
  /**
   * Push-to-talk (`turnTaking: 'push-to-talk'`): `talk(true)` while the talk button is held (throws
   * like VoiceSession.talk), `talk(false)` on release (never throws). `talking` says which.
   */
  talk(on: boolean): void;
  /** The current (or last) call's report; rejects with `not_connected` before any call, like VoiceSession.report. */
  report(): Promise<SessionReport>;
  /** Retries blocked playback; call it from a click. */
  resumePlayback(): Promise<void>;
  /** Switches the microphone during a call to one of `devices.inputs` (rejects `not_connected` without a call). */
  setInputDevice(deviceId: string): Promise<void>;
  /**
   * Routes the answers to one of `devices.outputs` (`''`: the default), for this call and the next
   * ones; rejects with `not_supported` where the browser has no `setSinkId`.
   */
  setOutputDevice(deviceId: string): Promise<void>;
  /**
   * Rates turn `turnId` of the current (or last) call (E6, `source=widget`; the last call wins),
   * also after it ended. Needs `sources: withSources()` (kb-voice/sources) in the options, which
   * also fills each turn's `sources` in the snapshot; rejects with `not_connected` before any call.
   */
  rate(turnId: number, rating: TurnRating): Promise<void>;
  /** The current call's VoiceSession (e.g. for `level` events), undefined before the first call. */
  session: VoiceSession | undefined;
}

/**
 * A voice call in a React component. Each `start()` after an ended call makes a new VoiceSession;
 * the options are read when a call starts. The component re-renders when the snapshot changes
 * (never for audio levels: listen to `session.on('level')` for those). Unmounting ends the call at
 * once; StrictMode's simulated unmount and remount does not.
 */
export function useVoiceSession(options: VoiceSessionOptions): VoiceSessionControls {
  const latest = useRef(options);
  latest.current = options;
  const holderRef = useRef<SessionHolder | undefined>(undefined);
  holderRef.current ??= new SessionHolder(() => latest.current);
  const holder = holderRef.current;

  // StrictMode re-runs this effect right after its cleanup: only a real unmount ends the call.
  useEffect(() => holder.attach(), [holder]);

  const snapshot = useSyncExternalStore(holder.subscribe, holder.getSnapshot, holder.getSnapshot);
  return useMemo(
    () => ({
      ...snapshot,
      session: holder.session,
      start: () => holder.start(),
      end: (endOptions?: EndOptions) => holder.end(endOptions),
      mute: () => holder.setMuted(true),
      unmute: () => holder.setMuted(false),
      sendText: (text: string) => holder.sendText(text),
      interrupt: () => holder.interrupt(),
      talk: (on: boolean) => holder.talk(on),
      report: () => holder.report(),
      resumePlayback: () => holder.resumePlayback(),
      setInputDevice: (deviceId: string) => holder.setInputDevice(deviceId),
      setOutputDevice: (deviceId: string) => holder.setOutputDevice(deviceId),
      rate: (turnId: number, rating: TurnRating) => holder.session?.rate(turnId, rating) ?? Promise.reject(new VoiceSessionError('not_connected', 'No call yet')),
    }),
    [snapshot, holder],
  );
}
