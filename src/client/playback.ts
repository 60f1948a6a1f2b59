import type { SessionEffect } from './effects.js';
import { deadline, type Clock } from '../clock.js';
import { VoiceSessionError } from './errors.js';

/** resume() settles within this bound, whatever the browser's media elements do. */
export const PLAYBACK_TIMEOUT_MS = 3000;


/** What the playback tells its session. */
export interface PlaybackEvents {
  /** The autoplay policy refused to play: `error` is the `playback_blocked` to report. */
  blocked(error: VoiceSessionError): void;
  /** resume() made it play after a block. */
  resumed(): void;
}

/**
 * Plays the assistant's audio through an `<audio>` element (the caller's, or a detached one;
 * none outside browsers) and tracks whether the browser blocks it.
 */
export class AudioPlayback implements SessionEffect {
  blocked = false;
  private el: HTMLAudioElement | undefined;
  /** The output chosen with setOutput(), and the element it was last applied to. */
  private sinkId: string | undefined;
  private sunk: HTMLAudioElement | undefined;

  constructor(private readonly given: HTMLAudioElement | undefined, private readonly clock: Clock, private readonly events: PlaybackEvents) {}

  attach(stream: MediaStream): void {
    const el = this.given ?? this.el ?? (typeof Audio === 'function' ? new Audio() : undefined);
    if (!el) return;
    this.el = el;
    if (this.sinkId !== undefined && this.sunk !== el) void this.applySink(el, this.sinkId).catch(() => undefined);
    el.autoplay = true;
    el.srcObject = stream;
    el.play()?.catch((err: { name?: string }) => {
      if (err?.name !== 'NotAllowedError') return; // e.g. AbortError when the source changed again
      this.blocked = true;
      this.events.blocked(new VoiceSessionError('playback_blocked', 'The browser blocked audio playback: call resumePlayback() from a user gesture', { cause: err }));
    });
  }

  /** Plays again after a block (from a user gesture); settles within PLAYBACK_TIMEOUT_MS. */
  async resume(): Promise<void> {
    const el = this.el;
    if (!el) return;
    try {
      const limit = deadline(this.clock, PLAYBACK_TIMEOUT_MS, () => new Error(`audio.play() did not settle within ${PLAYBACK_TIMEOUT_MS} ms`));
      await Promise.race([Promise.resolve(el.play()), limit.promise]).finally(limit.clear);
    } catch (err) {
      throw new VoiceSessionError('playback_blocked', 'The browser still blocks audio playback', { cause: err });
    }
    if (this.blocked) {
      this.blocked = false;
      this.events.resumed();
    }
  }

  /**
   * Routes the assistant's audio to the output device `deviceId` (`''`: the system default) with
   * `HTMLMediaElement.setSinkId`. Rejects with `not_supported` where the browser has no setSinkId
   * (Safari before 18.4, Firefox without its preference), and with `device_unavailable` (the
   * browser's error as `cause`) when it refuses that device (gone, not allowed).
   */
  async setOutput(deviceId: string): Promise<void> {
    const el = this.given ?? this.el ?? (typeof Audio === 'function' ? new Audio() : undefined);
    if (!el || typeof (el as { setSinkId?: unknown }).setSinkId !== 'function') {
      throw new VoiceSessionError('not_supported', 'This browser cannot choose the audio output device (no HTMLMediaElement.setSinkId)');
    }
    this.el ??= el;
    await this.applySink(el, deviceId);
    this.sinkId = deviceId;
  }

  private async applySink(el: HTMLAudioElement, deviceId: string): Promise<void> {
    try {
      await (el as HTMLAudioElement & { setSinkId(id: string): Promise<void> }).setSinkId(deviceId);
      this.sunk = el;
    } catch (err) {
      throw new VoiceSessionError('device_unavailable', `The audio output could not be set to ${JSON.stringify(deviceId)}: ${(err as Error)?.name ?? err}`, { cause: err });
    }
  }

  /** The call is over: stop and let go of the stream. */
  close(): void {
    this.release();
  }

  release(): void {
    if (!this.el) return;
    this.el.pause();
    this.el.srcObject = null;
  }
}
