import { VoiceSessionError } from './errors.js';
import { openMicrophone, stopStream, type MicrophoneSource } from './media.js';

/**
 * The user's microphone during one call: opened once, muted by disabling its track (so unmuting is
 * instant), switched to another device in place, stopped at the end. A track that ends by itself
 * (device unplugged, Bluetooth off, taken by another app) is reported through `lost`. With source
 * `false` (a text-only call) nothing is ever opened. An effect: it reports, never emits.
 */
export class Microphone {
  private _stream: MediaStream | undefined;
  private _muted = false;
  private watched: MediaStreamTrack | undefined;
  private readonly onEnded = () => this.lost?.();

  constructor(
    private readonly source: MicrophoneSource | false | undefined,
    private readonly report: (muted: boolean) => void,
    private readonly lost?: () => void,
  ) {}

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
    const stream = await openMicrophone(this.source);
    if (standDown()) {
      stopStream(stream);
      return undefined;
    }
    this._stream = stream;
    this.apply();
    this.watch(stream.getAudioTracks()[0]);
    return stream;
  }

  setMuted(muted: boolean): void {
    if (this._muted === muted) return;
    this._muted = muted;
    this.apply();
    this.report(muted);
  }

  /** The user is done (the call is ending): nothing more is sent, whatever `muted` says. */
  silence(): void {
    for (const track of this._stream?.getAudioTracks() ?? []) track.enabled = false;
  }

  /**
   * Opens `deviceId` and puts its track in place of the current one; `replace` hands it to the
   * connection. Throws `not_connected` when `standDown()` says the call ended meanwhile.
   */
  async switchTo(deviceId: string | undefined, standDown: () => boolean, replace: (old: MediaStreamTrack, track: MediaStreamTrack, stream: MediaStream) => void): Promise<MediaStream> {
    const current = this._stream!;
    if (this.source === false) throw new VoiceSessionError('not_supported', 'A text-only call (microphone: false) has no microphone to switch');
    const next = await openMicrophone(this.source, deviceId);
    const track = next.getAudioTracks()[0]!;
    if (this._stream !== current || standDown()) {
      stopStream(next);
      throw new VoiceSessionError('not_connected', 'The call ended while the device was switching');
    }
    track.enabled = !this._muted;
    const old = current.getAudioTracks()[0];
    try {
      if (old) replace(old, track, current);
    } catch (err) {
      stopStream(next);
      throw new VoiceSessionError('microphone_unavailable', 'Could not switch the input device', { cause: err });
    }
    if (old) {
      current.removeTrack(old);
      old.stop();
    }
    current.addTrack(track);
    this.watch(track);
    return current;
  }

  /** Stops every track (the browser's recording indicator goes off). */
  stop(): void {
    this.watch(undefined);
    stopStream(this._stream);
  }

  /** Listens for `ended` on `track` only (the browser ends a track by itself when its device goes away). */
  private watch(track: MediaStreamTrack | undefined): void {
    this.watched?.removeEventListener?.('ended', this.onEnded);
    this.watched = track;
    track?.addEventListener?.('ended', this.onEnded);
  }

  private apply(): void {
    for (const track of this._stream?.getAudioTracks() ?? []) track.enabled = !this._muted;
  }
}
