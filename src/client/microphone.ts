import type { SessionEffect } from './effects.js';
import { VoiceSessionError } from './errors.js';
import { openMicrophone, stopStream, type MicrophoneSource } from './media.js';

/**
 * The user's microphone during one call: opened once, muted by disabling its track (so unmuting is
 * instant), switched to another device in place, stopped at the end. A track that ends by itself
 * (device unplugged, Bluetooth off, taken by another app) is reported through `lost`. With source
 * `false` (a text-only call) nothing is ever opened. An effect: it reports, never emits.
 */
/** What cleans the opened microphone (the session's NoiseStage): constraints to open it with, and the stream to send for it. */
export interface MicrophoneStage {
  readonly constraints: MediaTrackConstraints;
  apply(raw: MediaStream): Promise<MediaStream>;
  /** The raw stream is no longer used: stop it and what processes it. */
  release(raw: MediaStream): void;
}

export class Microphone implements SessionEffect {
  private _stream: MediaStream | undefined;
  /** The device's own stream: `_stream` itself, or what the stage processes into `_stream`. */
  private raw: MediaStream | undefined;
  private _muted = false;
  /** Push-to-talk: the caller holds talk (always true in `auto` turn-taking). */
  private talking: boolean;
  /** The pre-connect buffer records the caller: the sent track stays silent until connected. */
  private held = false;
  private watched: MediaStreamTrack | undefined;
  private readonly onEnded = () => this.trackEnded?.();

  constructor(
    private readonly source: MicrophoneSource | false | undefined,
    private readonly report: (muted: boolean) => void,
    private readonly trackEnded?: () => void,
    private readonly stage?: MicrophoneStage,
    pushToTalk = false,
  ) {
    this.talking = !pushToTalk;
  }

  /** The device's stream before any processing (for level meters: no added delay); undefined before open. */
  get input(): MediaStream | undefined {
    return this.raw;
  }

  /** A text-only call (`microphone: false`): no microphone is asked for. */
  get textOnly(): boolean {
    return this.source === false;
  }

  /** The stream sent to the service; kept across device switches, so a reconnection sends the current track. */
  get stream(): MediaStream | undefined {
    return this._stream;
  }

  get muted(): boolean {
    return this._muted;
  }

  /** Opens it; when `standDown()` says the call is ending meanwhile, releases it again and returns undefined. */
  async open(standDown: () => boolean): Promise<MediaStream | undefined> {
    if (this.source === false) return undefined;
    const raw = await openMicrophone(this.source, undefined, this.stage?.constraints);
    const stream = !standDown() && this.stage ? await this.stage.apply(raw) : raw;
    if (standDown()) {
      this.discard(raw, stream);
      return undefined;
    }
    this._stream = stream;
    this.raw = raw;
    this.apply();
    this.watch(raw.getAudioTracks()[0]);
    return stream;
  }

  /** Push-to-talk: the microphone is heard only while `talking` (closed at its source, so a delayed processing still sends the words' tail). */
  setTalking(talking: boolean): void {
    this.talking = talking;
    this.apply();
  }

  /** Whether the caller may be heard: not muted and, in push-to-talk, holding talk. */
  get audible(): boolean {
    return !this._muted && this.talking;
  }

  /** The pre-connect buffer carries the audio until connected: nothing is sent on the track meanwhile. */
  hold(on: boolean): void {
    this.held = on;
    this.apply();
  }

  setMuted(muted: boolean): void {
    if (this._muted === muted) return;
    this._muted = muted;
    this.apply();
    this.report(muted);
  }

  /** The user is done (the call is ending): nothing more is sent, whatever `muted` says. */
  silence(): void {
    for (const track of [...(this._stream?.getAudioTracks() ?? []), ...(this.raw?.getAudioTracks() ?? [])]) track.enabled = false;
  }

  /**
   * Opens `deviceId` and puts its track in place of the current one; `replace` hands it to the
   * connection. Throws `not_connected` when `standDown()` says the call ended meanwhile.
   */
  async switchTo(deviceId: string | undefined, standDown: () => boolean, replace: (old: MediaStreamTrack, track: MediaStreamTrack, stream: MediaStream) => void): Promise<MediaStream> {
    const current = this._stream!;
    if (this.source === false) throw new VoiceSessionError('not_supported', 'A text-only call (microphone: false) has no microphone to switch');
    const nextRaw = await openMicrophone(this.source, deviceId, this.stage?.constraints);
    const next = this.stage ? await this.stage.apply(nextRaw) : nextRaw;
    const track = next.getAudioTracks()[0]!;
    if (this._stream !== current || standDown()) {
      this.discard(nextRaw, next);
      throw new VoiceSessionError('not_connected', 'The call ended while the device was switching');
    }
    const old = current.getAudioTracks()[0];
    try {
      if (old) replace(old, track, current);
    } catch (err) {
      this.discard(nextRaw, next);
      throw new VoiceSessionError('microphone_unavailable', 'Could not switch the input device', { cause: err });
    }
    if (old) {
      current.removeTrack(old);
      old.stop();
    }
    current.addTrack(track);
    // Without processing the device's stream is the one sent (`current`, which now holds the new
    // track): only a separate raw stream (rnnoise's input) is released, with its processing.
    if (this.stage && this.raw && this.raw !== current) this.stage.release(this.raw);
    this.raw = next === nextRaw ? current : nextRaw;
    this.apply();
    this.watch(nextRaw.getAudioTracks()[0]);
    return current;
  }

  /** Stops every track (the browser's recording indicator goes off). */
  close(): void {
    this.stop();
  }

  stop(): void {
    this.watch(undefined);
    stopStream(this._stream);
    if (this.raw && this.raw !== this._stream) this.stage?.release(this.raw);
  }

  /** Stops a stream opened for nothing (the call ended meanwhile), and its processing. */
  private discard(raw: MediaStream, sent: MediaStream): void {
    stopStream(sent);
    if (sent !== raw) this.stage?.release(raw);
    stopStream(raw);
  }

  /** Listens for `ended` on `track` only (the browser ends a track by itself when its device goes away). */
  private watch(track: MediaStreamTrack | undefined): void {
    this.watched?.removeEventListener?.('ended', this.onEnded);
    this.watched = track;
    track?.addEventListener?.('ended', this.onEnded);
  }

  /** Muting closes what is sent; push-to-talk closes the source (a processed stream then drains its delay first). */
  private apply(): void {
    const processed = this.raw !== this._stream;
    if (processed) for (const track of this._stream?.getAudioTracks() ?? []) track.enabled = !this._muted && !this.held;
    for (const track of this.raw?.getAudioTracks() ?? []) track.enabled = !this._muted && this.talking && (processed || !this.held);
  }
}
